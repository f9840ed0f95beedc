-- GPU and interconnect profiles for the engine's sim backend: one
-- gpu "NAME" { ... } declaration per device and link "NAME" { ... } per
-- interconnect (a key not listed below is refused with its line).
--
-- One "GPU" is one device as a cloud instance exposes it (a K80 board is two
-- GK210 devices; clouds count each as one GPU). Fields:
--   mem_gib       memory of one device (datasheet)
--   usable_mib    memory a process can allocate: what nvidia-smi reports as
--                 total (ECC and the driver take the rest)
--   fp32_tflops   peak FP32 with boost clocks (datasheet)
--   tf32_tflops   peak TF32 tensor-core, dense (Ampere and later)
--   fp16_tflops   peak FP16 tensor-core (or FP16 ALU on P100), dense
--   mem_gbs       memory bandwidth, GB/s
--   link          the interconnect of the servers that carry it (links below)
--   efficiency_as a GPU whose fitted efficiency this one borrows when it has
--                 no published throughput of its own (same chip)
-- Every number is { VALUE, LABEL, "source" [, low = , high = ] } (luadata's
-- evidence schema, as host profiles write it): "spec" for a datasheet or
-- whitepaper figure, "measured" for what nvidia-smi reports, "assumed" with
-- low and high and why. `tiersim engines --evidence` lists them.
local SMI = "nvidia-smi memory.total of the device with ECC on"
local DS = "NVIDIA Tesla K40 datasheet (2013)"
gpu "K40" { aliases = { "k40", "k40m" },
  -- NVIDIA Tesla K40 datasheet (2013): 12 GB GDDR5, 288 GB/s, 4.29 TFLOPS
  -- FP32 with GPU Boost. nvidia-smi total with ECC on: 11441 MiB.
  mem_gib = { 12, "spec", DS }, usable_mib = { 11441, "measured", SMI },
  fp32_tflops = { 4.29, "spec", DS }, mem_gbs = { 288, "spec", DS }, link = "pcie3" }
local DS = "NVIDIA Tesla K80 datasheet (2014), per GK210 device: the board's figure / 2"
gpu "K80" { aliases = { "k80" },
  -- NVIDIA Tesla K80 datasheet (2014): per board 24 GB, 480 GB/s, 8.73 TFLOPS
  -- FP32 with GPU Boost, i.e. per GK210 device 12 GB, 240 GB/s, 4.37 TFLOPS.
  -- nvidia-smi total per device with ECC on: 11441 MiB.
  mem_gib = { 12, "spec", DS }, usable_mib = { 11441, "measured", SMI },
  fp32_tflops = { 4.37, "spec", DS }, mem_gbs = { 240, "spec", DS }, link = "pcie3" }
local DS = "NVIDIA Tesla P4 datasheet (2016)"
gpu "P4" { aliases = { "p4" },
  -- NVIDIA Tesla P4 datasheet (2016): 8 GB GDDR5, 192 GB/s, 5.5 TFLOPS FP32
  -- (also Dell EMC HPC blog "Deep learning inference on P40 GPUs", 2017).
  -- usable: 7611 MiB as nvidia-smi reports it.
  mem_gib = { 8, "spec", DS }, usable_mib = { 7611, "measured", SMI },
  fp32_tflops = { 5.5, "spec", DS }, mem_gbs = { 192, "spec", DS }, link = "pcie3" }
local DS = "NVIDIA Tesla P100 PCIe datasheet (2016)"
gpu "P100-PCIe" { aliases = { "p100", "p100-pcie" },
  -- NVIDIA Tesla P100 PCIe datasheet (2016): 16 GB HBM2, 732 GB/s, 9.3 TFLOPS
  -- FP32, 18.7 FP16. The gn5 instances of the study carry this card
  -- (Alibaba ECS instance-family doc). nvidia-smi total: 16280 MiB.
  mem_gib = { 16, "spec", DS }, usable_mib = { 16280, "measured", SMI },
  fp32_tflops = { 9.3, "spec", DS }, fp16_tflops = { 18.7, "spec", DS },
  mem_gbs = { 732, "spec", DS },
  link = "pcie3", efficiency_as = "P100-SXM2" }
local DS = "NVIDIA Tesla P100 SXM2 datasheet (2016)"
gpu "P100-SXM2" { aliases = { "p100-sxm2", "dgx1-p100" },
  -- NVIDIA Tesla P100 SXM2 datasheet (2016): 16 GB HBM2, 732 GB/s, 10.6 TFLOPS
  -- FP32, 21.2 FP16; NVLink (DGX-1). nvidia-smi total: 16280 MiB.
  mem_gib = { 16, "spec", DS }, usable_mib = { 16280, "measured", SMI },
  fp32_tflops = { 10.6, "spec", DS }, fp16_tflops = { 21.2, "spec", DS },
  mem_gbs = { 732, "spec", DS },
  link = "nvlink1" }
local DS = "NVIDIA Tesla V100 SXM2 16 GB datasheet (2017)"
gpu "V100" { aliases = { "v100", "v100-sxm2" },
  -- NVIDIA Tesla V100 SXM2 16 GB datasheet (2017): 15.7 TFLOPS FP32, 125 tensor,
  -- 900 GB/s; NVLink 2 (DGX-1V, AWS p3). nvidia-smi total: 16160 MiB.
  mem_gib = { 16, "spec", DS }, usable_mib = { 16160, "measured", SMI },
  fp32_tflops = { 15.7, "spec", DS }, fp16_tflops = { 125, "spec", DS },
  mem_gbs = { 900, "spec", DS },
  link = "nvlink2" }
local DS = "NVIDIA A100 80GB SXM datasheet (2020)"
gpu "A100" { aliases = { "a100", "a100-80gb" },
  -- NVIDIA A100 80GB SXM datasheet (2020): 19.5 TFLOPS FP32, 156 TF32 tensor,
  -- 312 FP16 tensor (dense), 2039 GB/s; NVLink 3 600 GB/s. nvidia-smi: 81920 MiB.
  mem_gib = { 80, "spec", DS }, usable_mib = { 81920, "measured", SMI },
  fp32_tflops = { 19.5, "spec", DS }, tf32_tflops = { 156, "spec", DS },
  fp16_tflops = { 312, "spec", DS }, mem_gbs = { 2039, "spec", DS }, link = "nvlink3" }
local DS = "NVIDIA H100 SXM5 80GB datasheet (2022), dense"
gpu "H100" { aliases = { "h100", "h100-sxm" },
  -- NVIDIA H100 SXM5 80GB datasheet (2022): 67 TFLOPS FP32, 495 TF32 and 990
  -- FP16 tensor (dense; the sheet quotes twice that with sparsity), 3.35 TB/s;
  -- NVLink 4 900 GB/s. nvidia-smi total: 81559 MiB.
  mem_gib = { 80, "spec", DS }, usable_mib = { 81559, "measured", SMI },
  fp32_tflops = { 67, "spec", DS }, tf32_tflops = { 495, "spec", DS },
  fp16_tflops = { 990, "spec", DS }, mem_gbs = { 3350, "spec", DS }, link = "nvlink4" }
local DS = "NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM column, dense"
gpu "H200" { aliases = { "h200", "h200-sxm" },
  -- NVIDIA H200 Tensor Core GPU datasheet (2024), H200 SXM: 141 GB HBM3e,
  -- 4.8 TB/s, 67 TFLOPS FP32, 989 TF32 and 1,979 BF16/FP16 tensor "with
  -- sparsity" (dense: half, 495 and 990, the H100 SXM's rates: the same
  -- GH100 chip, so it borrows the H100's fitted efficiency); NVLink 900 GB/s.
  -- nvidia-smi memory.total on one H200 SXM (driver 580.159): 143771 MiB.
  mem_gib = { 141, "spec", DS }, usable_mib = { 143771, "measured", SMI },
  fp32_tflops = { 67, "spec", DS }, tf32_tflops = { 495, "spec", DS },
  fp16_tflops = { 990, "spec", DS }, mem_gbs = { 4800, "spec", DS }, link = "nvlink4",
  efficiency_as = "H100" }

-- GPU-to-GPU links for the ring allreduce. bw_gbs is per direction per GPU.
-- lat_us is one ring hop's fixed cost. No vendor publishes it; 5 us is the
-- order of a PCIe / NVLink round trip (an assumption: at the millisecond
-- step times here it changes no printed figure by more than 0.1%).
local HOP = { 5, "assumed", "no vendor publishes a ring hop's fixed cost; 5 us is the order "
  .. "of a PCIe or NVLink round trip", low = 1, high = 20 }
-- PCI-SIG PCIe 3.0: 8 GT/s x 16 lanes, 128b/130b = 15.75 GB/s per direction.
link "pcie3" { bw_gbs = { 15.75, "spec", "PCI-SIG PCIe 3.0: 8 GT/s x 16 lanes, 128b/130b" }, lat_us = HOP }
-- NVIDIA P100 whitepaper (2016): 4 NVLink 1 links of 20 GB/s per direction.
link "nvlink1" { bw_gbs = { 80, "spec", "NVIDIA P100 whitepaper (2016): 4 NVLink 1 links x 20 GB/s" }, lat_us = HOP }
-- NVIDIA V100 whitepaper (2017): 6 NVLink 2 links of 25 GB/s per direction.
link "nvlink2" { bw_gbs = { 150, "spec", "NVIDIA V100 whitepaper (2017): 6 NVLink 2 links x 25 GB/s" }, lat_us = HOP }
-- NVIDIA A100 datasheet: 600 GB/s total NVLink 3 = 300 GB/s per direction.
link "nvlink3" { bw_gbs = { 300, "spec", "NVIDIA A100 datasheet (2020): 600 GB/s total / 2" }, lat_us = HOP }
-- NVIDIA H100 datasheet: 900 GB/s total NVLink 4 = 450 GB/s per direction.
link "nvlink4" { bw_gbs = { 450, "spec", "NVIDIA H100 datasheet (2022): 900 GB/s total / 2" }, lat_us = HOP }
