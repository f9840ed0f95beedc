-- tier_inference.lua — SCENARIOS.md experiment 6: NVCaffe GoogLeNet
-- inference (the validation set) from local NVMe SSD, SSD cloud disk and
-- ultra cloud disk (images/s). Inference reads ~4x faster than training
-- consumes, so it is where the disk shows first.
--
--   tiersim compare scripts/tier_inference.lua --tiers nvme-local,ssd-cloud,ultra-cloud
local p = params{
  count = tiersim.virtual and 50000 or 2000,
  iterations = tiersim.virtual and 1000 or 30,
  model = "googlenet",
  batch = 50,
  vcpus = 8,       -- gn5-c8g1.2xlarge; beyond the host's cores decode is modeled
  mem = "512MiB",
}

report{ title = ("%s inference per disk tier"):format(p.model) }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = p.mem }
pipeline{ vcpus = p.vcpus, qd = 32, prefetch = 4, shuffle = false, augment = false }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
run{ iterations = p.iterations, warmup = 3 }
