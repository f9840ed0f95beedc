-- tf_cifar10.lua — SCENARIOS.md experiment 11: TensorFlow's CIFAR-10
-- multi-GPU model on 1/2/4/8 P100s: samples/s and speed-up. CIFAR-10
-- records are 3,073 bytes (1 label + 32x32x3 pixels, the binary release);
-- here they are synthetic.
--
--   tiersim run scripts/tf_cifar10.lua
local p = params{ iterations = tiersim.virtual and 1000 or 20, batch = 128 }

report{ title = "TensorFlow CIFAR-10 multi-GPU (synthetic data)" }
pipeline{ source = "null", sample_size = 3073, decode = "none", vcpus = 2, prefetch = 4 }
engine{ model = "cifar10", gpu = "P100-PCIe", framework = "tensorflow-2017", mode = "train",
        batch = p.batch }
local rows = sweep{ engine = { gpus = { 1, 2, 4, 8 } },
                    run = { iterations = p.iterations, warmup = 2 } }
for _, r in ipairs(rows) do
  if r.samples_per_s and rows[1].samples_per_s then
    print(("%-12s speed-up %.2fx"):format(r.label, r.samples_per_s / rows[1].samples_per_s))
  end
end
