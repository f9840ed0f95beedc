-- gpu_generations.lua — SCENARIOS.md experiment 12: AlexNet in benchmark
-- mode on one GPU, forward (infer) and forward-backward (train) seconds
-- per batch on P100, P4 and K80. Seconds per batch is the step p50 column
-- of --csv/--json (and printed below the table).
--
--   tiersim run scripts/gpu_generations.lua
local p = params{ iterations = tiersim.virtual and 1000 or 10, batch = 128 }

report{ title = "AlexNet benchmark mode: P100 vs P4 vs K80" }
pipeline{ source = "null", sample_size = "1k", decode = "none", vcpus = 2, prefetch = 4 }
engine{ model = "alexnet", framework = "nvcaffe", batch = p.batch, gpus = 1 }
local rows = sweep{ engine = { gpu = { "P100-PCIe", "P4", "K80" }, mode = { "infer", "train" } },
                    run = { iterations = p.iterations, warmup = 2 } }
for _, r in ipairs(rows) do
  if r.step_p50_ms then
    print(("%-24s %.4f s/batch"):format(r.label, r.step_p50_ms / 1000))
  end
end
