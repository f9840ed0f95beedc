-- mxnet_benchmark.lua — SCENARIOS.md experiment 10: MXNet Inception-v3 in
-- benchmark mode (synthetic data) on 1/2/4/8 GPUs: the P100 VM against an
-- AWS p2.16xlarge (K80), samples/s.
--
--   tiersim run scripts/mxnet_benchmark.lua
local p = params{ iterations = tiersim.virtual and 1000 or 8, batch = 32 }

report{ title = "MXNet Inception-v3 benchmark mode: P100 vs K80" }
pipeline{ source = "null", sample_size = "1k", decode = "none", vcpus = 2, prefetch = 4 }
engine{ model = "inception3", framework = "mxnet", mode = "train", batch = p.batch }
sweep{
  engine = { gpu = { "P100-PCIe", "K80" }, gpus = { 1, 2, 4, 8 } },
  run = { iterations = p.iterations, warmup = 2 },
}
