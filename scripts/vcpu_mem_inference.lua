-- vcpu_mem_inference.lua — SCENARIOS.md experiment 5: NVCaffe inference on
-- the ImageNet validation images (AlexNet / GoogLeNet / ResNet-50 / VGG16)
-- across vCPU x memory: images/s. As the study ran it: the 50,000 val images
-- as an LMDB of raw Datums read with a cursor; each vCPU a loader worker
-- charged what a Datum costs one core of gn5's Xeon E5-2682 v4 (its host
-- profile, tiersim hosts).
--
--   tiersim run scripts/vcpu_mem_inference.lua model=resnet50
local p = params{
  count = tiersim.virtual and 50000 or 1500,
  iterations = tiersim.virtual and 1000 or 20,
  model = "googlenet",
  batch = 50,
  tier = "nvme-local",
  host = "xeon-e5-2682v4",
}

report{ title = ("NVCaffe %s inference: vCPU x memory"):format(p.model) }
dataset{ kind = "imagenet-lmdb", count = p.count }
mount{ tier = p.tier, capacity = "440GiB" }
-- Every row charges the host profile's costs (decode = "modeled"), so 2 and 8
-- vCPUs compare alike on any machine; host=this-machine charges this host's
-- calibration, and with it pipeline.decode=real runs for real.
pipeline{ source = "lmdb", qd = 32, prefetch = 4, shuffle = false, augment = false,
          decode = "modeled", host = p.host }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
sweep{
  pipeline = { vcpus = { 2, 4, 8 } },
  mount = { mem = { "128MiB", "1GiB" } },
  run = { iterations = p.iterations, warmup = 2 },
}
