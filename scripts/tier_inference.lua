-- tier_inference.lua — SCENARIOS.md experiment 6: NVCaffe GoogLeNet
-- inference (the validation set) from local NVMe SSD, SSD cloud disk and
-- ultra cloud disk (images/s). Inference reads ~4x faster than training
-- consumes, so it is where the disk shows first. As the study ran it: the
-- 50,000 val images as an LMDB of raw Datums (convert_imageset, 256x256;
-- 9.8 GB, the study's "9.4 GB"), read with a cursor, centre crop, on
-- gn5-c8g1.2xlarge (8 vCPU, 60 GiB, Xeon E5-2682 v4 by its host profile).
--
--   tiersim compare scripts/tier_inference.lua --tiers nvme-local,ssd-cloud,ultra-cloud
local p = params{
  count = tiersim.virtual and 50000 or 2000,
  iterations = tiersim.virtual and 1000 or 30,
  model = "googlenet",
  batch = 50,
  vcpus = 8,       -- gn5-c8g1.2xlarge
  mem = "60GiB",
  host = "xeon-e5-2682v4",  -- its CPU (tiersim hosts); this-machine = this host's
}

report{ title = ("%s inference per disk tier"):format(p.model) }
dataset{ kind = "imagenet-lmdb", count = p.count }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = p.mem }
pipeline{ source = "lmdb", vcpus = p.vcpus, qd = 32, prefetch = 4, shuffle = false,
          augment = false, host = p.host }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "infer",
        batch = p.batch }
run{ iterations = p.iterations, warmup = 3 }
