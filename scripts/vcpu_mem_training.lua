-- vcpu_mem_training.lua — SCENARIOS.md experiment 1: NVCaffe training from
-- LMDB (AlexNet / GoogLeNet / ResNet-50 / VGG16) for several vCPU x memory
-- configurations: images/s. vCPUs are the loader's workers, each charged
-- what a raw Datum's transform costs one core of gn5's Xeon E5-2682 v4 (its
-- host profile, tiersim hosts); memory is the page-cache model's size.
--
--   tiersim run scripts/vcpu_mem_training.lua model=alexnet
local p = params{
  count = tiersim.virtual and 1281167 or 1500,
  iterations = tiersim.virtual and 1000 or 16,
  model = "googlenet",
  batch = 64,
  tier = "nvme-local",
  host = "xeon-e5-2682v4",
}

report{ title = ("NVCaffe %s training from LMDB: vCPU x memory"):format(p.model) }
dataset{ kind = "imagenet-lmdb", count = p.count }
mount{ tier = p.tier, capacity = "440GiB" }
-- Every row charges the host profile's costs (decode = "modeled"), so 2 and 8
-- vCPUs compare alike on any machine; host=this-machine charges this host's
-- calibration, and with it pipeline.decode=real runs for real.
pipeline{ source = "lmdb", shuffle = false, decode = "modeled", qd = 16, prefetch = 4,
          host = p.host }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "train",
        batch = p.batch }
sweep{
  pipeline = { vcpus = { 2, 4, 8 } },
  mount = { mem = { "128MiB", "1GiB" } },
  run = { iterations = p.iterations, warmup = 2 },
}
