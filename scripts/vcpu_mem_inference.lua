-- vcpu_mem_inference.lua — SCENARIOS.md experiment 5: NVCaffe inference on
-- the ImageNet validation images (AlexNet / GoogLeNet / ResNet-50 / VGG16)
-- across vCPU x memory: images/s.
--
--   tiersim run scripts/vcpu_mem_inference.lua model=resnet50
local p = params{
  count = tiersim.virtual and 50000 or 1500,
  iterations = tiersim.virtual and 1000 or 20,
  model = "googlenet",
  batch = 50,
  tier = "nvme-local",
}

report{ title = ("NVCaffe %s inference: vCPU x memory"):format(p.model) }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = p.tier, capacity = "440GiB" }
-- Every row charges the decode cost measured on this host (decode = "modeled"),
-- so 2 and 8 vCPUs compare alike on any host; pipeline.decode=real decodes
-- for real where the host has the cores.
pipeline{ qd = 32, prefetch = 4, shuffle = false, augment = false, decode = "modeled" }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
sweep{
  pipeline = { vcpus = { 2, 4, 8 } },
  mount = { mem = { "128MiB", "1GiB" } },
  run = { iterations = p.iterations, warmup = 2 },
}
