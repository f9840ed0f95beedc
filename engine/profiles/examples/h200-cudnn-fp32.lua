-- Example: not loaded by default (engine option profile=engine/profiles/examples/h200-cudnn-fp32.lua).
-- Written on one NVIDIA H200 SXM (driver 580.159.04, CUDA 13.0, cuDNN 9.19.0 of PyTorch's pip
-- packages) by bench/gpu_device.sh run, round 2 of 3 of: tiersim calibrate engine --gpu
-- --precision fp32 --batches 64,128,256 --warmup 3 --steps 12 --seed 2. Every round's figures
-- are within 0.2% of this one's (engine/README.md, the H200 check). Below, as written:
-- Engine calibration written by `tiersim calibrate engine --gpu` on 2026-12-04 16:22 UTC.
-- Measured on NVIDIA H200 (compute 9.0, 132 SMs, 139.8 GiB), cuDNN 91900, CUDA runtime 13000:
-- the cuda backend (engine/cuda.c) training resnet50, fp32, 3 warm-up steps,
-- then the mean of 12 steps timed with CUDA events.
-- Use it with the engine option profile=THIS_FILE (framework tiersim-cudnn, gpu H200).
-- act_train measured: 305397760 bytes more GPU memory per sample from batch 64 to 256
-- over 28102608 activation elements x 4 bytes (engine/netdef.c).
framework "tiersim-cudnn" { aliases = { "cudnn" }, precision = "fp32",
  efficiency_as = "tensorflow-2017", context_mib = 400, state_copies = 3,
  act_train = 2.717, act_infer = "all",
  allreduce_eff = 1.0, allreduce_gbs = 2.8, overlap = 1.0, sync_ms = 8.5,
  jitter_p99 = 1.02 }
anchor { framework = "tiersim-cudnn", model = "resnet50", gpu = "H200", mode = "train",
  precision = "fp32", batch = 64, value = 762.04,
  evidence = { "measured", "tiersim calibrate engine --gpu on NVIDIA H200, 2026-12-04 16:22 UTC; step p50 84.05 ms, p99 84.05 ms" } }
anchor { framework = "tiersim-cudnn", model = "resnet50", gpu = "H200", mode = "train",
  precision = "fp32", batch = 128, value = 800.90,
  evidence = { "measured", "tiersim calibrate engine --gpu on NVIDIA H200, 2026-12-04 16:22 UTC; step p50 160.04 ms, p99 160.04 ms" } }
anchor { framework = "tiersim-cudnn", model = "resnet50", gpu = "H200", mode = "train",
  precision = "fp32", batch = 256, value = 826.35,
  evidence = { "measured", "tiersim calibrate engine --gpu on NVIDIA H200, 2026-12-04 16:22 UTC; step p50 309.68 ms, p99 309.68 ms" } }
