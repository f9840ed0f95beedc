-- tier_training.lua — SCENARIOS.md experiment 4: NVCaffe GoogLeNet training
-- on a P100 from local NVMe SSD, SSD cloud disk and ultra cloud disk
-- (images/s). NVCaffe reads an LMDB of raw Datums with a cursor, as its data
-- layer does, on gn5-c8g1.2xlarge (8 vCPU, 60 GiB, Xeon E5-2682 v4: its host
-- profile charges each Datum's transform). kind=imagenet-jpeg or
-- imagenet-rec is a variant the study did not run.
--
--   tiersim compare scripts/tier_training.lua --tiers nvme-local,ssd-cloud,ultra-cloud
--   tiersim compare scripts/tier_training.lua --tiers ... --virtual   (full ImageNet)
local p = params{
  count = tiersim.virtual and 1281167 or 1500,
  iterations = tiersim.virtual and 1000 or 20,
  kind = "imagenet-lmdb",  -- or imagenet-jpeg, imagenet-rec
  model = "googlenet",
  batch = 64,
  vcpus = 8,       -- gn5-c8g1.2xlarge
  mem = "60GiB",
  host = "xeon-e5-2682v4",  -- its CPU (tiersim hosts); this-machine = this host's
}
local source = { ["imagenet-lmdb"] = "lmdb", ["imagenet-jpeg"] = "folder",
                 ["imagenet-rec"] = "rec" }

report{ title = ("%s training per disk tier (%s)"):format(p.model, p.kind) }
dataset{ kind = p.kind, count = p.count }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = p.mem }
-- Caffe reads its LMDB with one cursor, in stored order (shuffled once by
-- convert_imageset --shuffle); the others are shuffled per epoch.
pipeline{ source = source[p.kind], shuffle = source[p.kind] ~= "lmdb", vcpus = p.vcpus,
          qd = 16, prefetch = 4, host = p.host }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "train",
        batch = p.batch }
run{ iterations = p.iterations, warmup = 3 }
