-- training_sources.lua — one model trained from each on-disk format the
-- study used: Caffe's LMDB (cursor), MXNet's RecordIO (indexed records) and
-- a JPEG folder tree (a file per sample), on one tier: images/s.
--
--   tiersim run scripts/training_sources.lua
--   tiersim compare scripts/training_sources.lua --tiers ssd-cloud,ultra-cloud
local p = params{
  count = tiersim.virtual and 1281167 or 1500,
  iterations = tiersim.virtual and 1000 or 16,
  model = "resnet50",
  batch = 32,
  vcpus = 8,       -- gn5-c8g1.2xlarge; beyond the host's cores decode is modeled
}

report{ title = ("%s training by dataset format"):format(p.model) }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = "512MiB" }
engine{ model = p.model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "train",
        batch = p.batch }
for _, f in ipairs{ { "imagenet-lmdb", "lmdb" }, { "imagenet-rec", "rec" },
                    { "imagenet-jpeg", "folder" } } do
  dataset{ kind = f[1], count = p.count }
  pipeline{ source = f[2], shuffle = f[2] ~= "lmdb", vcpus = p.vcpus, qd = 16, prefetch = 4 }
  run{ iterations = p.iterations, warmup = 2, label = f[2] }
end
