-- mxnet_recordio.lua — SCENARIOS.md experiment 2: MXNet Inception-v3
-- training from a packed RecordIO file across vCPU x memory: samples/s.
-- MXNet keeps its own memory small; the record file is read through the
-- page-cache model of each memory size.
--
--   tiersim run scripts/mxnet_recordio.lua
local p = params{
  count = tiersim.virtual and 1281167 or 1500,
  iterations = tiersim.virtual and 1000 or 12,
  batch = 32,
  tier = "ssd-cloud",
}

report{ title = "MXNet Inception-v3 from RecordIO: vCPU x memory" }
dataset{ kind = "imagenet-rec", count = p.count }
mount{ tier = p.tier, capacity = "500GiB" }
-- Every row charges the decode cost measured on this host (decode = "modeled").
pipeline{ source = "rec", qd = 16, prefetch = 4, out_size = 299, resize = 320,
          decode = "modeled" }
engine{ model = "inception3", gpu = "P100-PCIe", framework = "mxnet", mode = "train",
        batch = p.batch }
sweep{
  pipeline = { vcpus = { 2, 4, 8 } },
  mount = { mem = { "128MiB", "1GiB" } },
  run = { iterations = p.iterations, warmup = 2 },
}
