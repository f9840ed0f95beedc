-- preprocess.lua — SCENARIOS.md experiment 7: converting ImageNet to an
-- LMDB with convert_imageset (read JPEG, resize to 256x256, write a Datum
-- per image, commit every 1000) on NVMe SSD, SSD cloud disk and ultra cloud
-- disk: seconds. Input and output sit on the same emulated disk; the LMDB's
-- writes and fsyncs pay the tier as the reads do. One thread on gn5's Xeon
-- E5-2682 v4: --virtual charges its host profile's decode + resize and LMDB
-- put (tiersim hosts; host=xeon-e5-2682v4/libjpeg-ijg for OpenCV's bundled
-- IJG libjpeg, host=this-machine for this host's calibration). Real time
-- runs the real conversion on this host.
--
--   tiersim compare scripts/preprocess.lua --tiers nvme-local,ssd-cloud,ultra-cloud
local p = params{
  count = tiersim.virtual and 1281167 or 1000,
  mem = "512MiB",
  encoded = false,
  host = "xeon-e5-2682v4",
}

report{ title = "ImageNet JPEG -> LMDB (convert_imageset) per disk tier" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = p.mem }
preprocess{ resize = 256, encoded = p.encoded, txn = 1000, host = p.host }
