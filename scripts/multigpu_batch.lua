-- multigpu_batch.lua — SCENARIOS.md experiment 8: NVCaffe GoogLeNet on an
-- 8xP100 server, images/s for 1/2/4/8 GPUs x several batch sizes per GPU
-- (rows marked OOM where the batch does not fit the P100's 16 GB). Data is
-- synthetic (benchmark mode) so the GPUs alone are compared; set
-- synthetic=false to read the LMDB through the tier instead.
--
--   tiersim run scripts/multigpu_batch.lua
local p = params{
  iterations = tiersim.virtual and 1000 or 10,
  synthetic = true,
  count = 3000,
}

report{ title = "NVCaffe GoogLeNet: GPUs x batch size (8xP100 server)" }
if p.synthetic then
  pipeline{ source = "null", sample_size = "1k", decode = "none", vcpus = 2, prefetch = 4 }
else
  dataset{ kind = "imagenet-lmdb", count = p.count }
  mount{ tier = "nvme-local", capacity = "1760GiB" }
  pipeline{ source = "lmdb", shuffle = false, vcpus = 2, prefetch = 4 }
end
engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe", mode = "train" }
sweep{
  { "engine.gpus", { 1, 2, 4, 8 } },
  { "engine.batch", { 32, 64, 128, 256, 512 } },
  run = { iterations = p.iterations, warmup = 2 },
}
