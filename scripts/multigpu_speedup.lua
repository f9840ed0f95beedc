-- multigpu_speedup.lua — SCENARIOS.md experiment 9: NVCaffe AlexNet /
-- GoogLeNet / ResNet-50 speed-up over one GPU for 1/2/4/8 P100s (synthetic
-- data). The table's rel column is relative to the best row; the speed-up
-- over one GPU is printed below it.
--
--   tiersim run scripts/multigpu_speedup.lua
local p = params{ iterations = tiersim.virtual and 1000 or 8 }

report{ title = "NVCaffe multi-GPU scaling on P100 (synthetic data)" }
pipeline{ source = "null", sample_size = "1k", decode = "none", vcpus = 2, prefetch = 4 }
local batch = { alexnet = 256, googlenet = 64, resnet50 = 32 }
for _, model in ipairs{ "alexnet", "googlenet", "resnet50" } do
  engine{ model = model, gpu = "P100-PCIe", framework = "nvcaffe", mode = "train",
          batch = batch[model] }
  local rows = sweep{ engine = { gpus = { 1, 2, 4, 8 } },
                      run = { iterations = p.iterations, warmup = 2, label = model } }
  local one = rows[1].samples_per_s
  for _, r in ipairs(rows) do
    if r.samples_per_s and one then
      print(("%-28s speed-up %.2fx"):format(r.label, r.samples_per_s / one))
    end
  end
end
