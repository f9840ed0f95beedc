-- lstm_ptb.lua — SCENARIOS.md experiment 3: MXNet LSTM on PennTreeBank
-- across vCPU x memory, down to 2 vCPU / 1 GB: samples/s (sequences of 35
-- words). The corpus is small and read in order; no image decode.
--
--   tiersim run scripts/lstm_ptb.lua
local p = params{
  words = tiersim.virtual and 887521 or 200000,
  iterations = tiersim.virtual and 1000 or 40,
  batch = 20,
  tier = "ssd-cloud",
}

report{ title = "MXNet LSTM (PTB medium) training: vCPU x memory" }
dataset{ kind = "ptb-text", count = p.words }
mount{ tier = p.tier, capacity = "500GiB" }
pipeline{ source = "text", seq_len = 35, qd = 4, prefetch = 4, decode = "none", shuffle = false }
engine{ model = "lstm-ptb-medium", gpu = "P100-PCIe", framework = "mxnet", mode = "train",
        batch = p.batch }
sweep{
  pipeline = { vcpus = { 1, 2 } },
  mount = { mem = { "64MiB", "1GiB" } },
  run = { iterations = p.iterations, warmup = 2 },
}
