-- Framework profiles for the engine's sim backend, one framework "NAME"
-- { ... } declaration each: how a framework spends GPU memory, and what a
-- data-parallel step costs beyond compute.
--
-- Memory (per GPU):
--   context_mib   CUDA context, library handles and allocator slack. No
--                 framework publishes it; 400 MiB is an assumption of the
--                 order an idle framework process shows in nvidia-smi.
--   state_copies  copies of the weights kept in training: weights + gradients
--                 + SGD momentum = 3 (Caffe: data, diff, history).
--   act_train     multiple of the summed layer outputs (engine/netdef.c; ReLU
--                 and dropout in place) held per sample in training.
--   act_infer     "all": every layer output is kept in inference (Caffe keeps
--                 its blobs); otherwise a number k: a memory planner keeps about
--                 k x (largest layer input + output) per sample live.
-- Multi-GPU (data-parallel ring allreduce of the FP32 gradients):
--   t_comm = 2(n-1)/n x gradient bytes / (link bw x allreduce_eff) + 2(n-1) x hop latency
--   exposed = max(0, t_comm - overlap x t_backward) + sync_ms (n > 1 only),
--   t_backward = 2/3 of a training step's compute (backward = 2 x forward).
--   allreduce_eff is a number or a table by link name (with a default);
--   allreduce_gbs, where set, caps the rate (GB/s) whatever the link;
--   allreduce_eff, overlap and sync_ms are fitted on published 1- and n-GPU
--   throughputs where those exist (tensorflow-2017, pytorch-2021); a fitted
--   efficiency absorbs everything that is not compute (stragglers, host work
--   per step), so it is not a link measurement. Elsewhere they are stated
--   assumptions.
-- Step-time jitter: lognormal with p99/p50 = jitter_p99, scaled so the mean
-- step is the nominal one (the published mean throughput stays exact).
--
-- Every number is { VALUE, LABEL, "source" [, low = , high = ] } (luadata's
-- evidence schema): "measured" where fitted on or bounded by published
-- figures, "spec" where the algorithm fixes it, "assumed" with low and high
-- and why. Those several frameworks share are here:
local CTX = { 400, "assumed", "CUDA context, library handles and allocator slack: no framework "
  .. "publishes it; the order an idle framework process shows in nvidia-smi",
  low = 250, high = 1000 }
local SGD = { 3, "spec", "SGD with momentum keeps weights, gradients and momentum (Caffe: "
  .. "Blob data and diff, SGDSolver history)" }
local CAFFE_ACT = { 2.0, "spec", "BVLC/caffe Blob: every layer output keeps data and diff "
  .. "(ReLU and dropout in place)" }
local MX_ACT = "perf.md trains ResNet-50 at b128 on a 16 GB V100 (<= 1.13), "
  .. "image-classification/README.md needs mirroring for Inception-v3 b128 on a K80 (> 0.93)"
local MX_INFER = "perf.md: VGG16 inference b128 fits a 16 GB V100, not a 12 GB K80, where "
  .. "Inception-v3 b128 fits; any k in (3.36, 4.86) reproduces all three"
local TF_RATE = "tensorflow-2017's fitted exchange rate on DGX-1 (80 GB/s x 0.035), the one "
  .. "measured for a framework of that year; no figures of this framework published"
local ALLRED_CAPPED = { 1.0, "assumed", "allreduce_gbs sets the rate; the link's bandwidth "
  .. "taken whole", low = 0.5, high = 1.0 }
local GBS_2017 = { 2.8, "assumed", TF_RATE, low = 1.4, high = 5.6 }
local LAYERWISE = { 1.0, "assumed", "gradients reduced layer by layer while backward runs "
  .. "(BVLC/caffe parallel.cpp layer_wise_reduce, MXNet kvstore 'device'): full overlap "
  .. "taken", low = 0.5, high = 1.0 }
local SYNC_2017 = { 8.5, "assumed", "tensorflow-2017's fitted per-step cost; no figures of "
  .. "this framework published", low = 4.25, high = 17 }
local JITTER = { 1.02, "assumed", "pytorch-2021's measured p99 (DeepLearningExamples README); "
  .. "none published for this framework", low = 1.0, high = 1.1 }
framework "caffe" { aliases = { "bvlc-caffe" }, precision = "fp32",
  -- BVLC/caffe docs/performance_hardware.md figures anchor it (anchors.lua).
  context_mib = CTX, state_copies = SGD, act_train = CAFFE_ACT, act_infer = "all",
  -- multi-GPU: as nvcaffe
  allreduce_eff = ALLRED_CAPPED, allreduce_gbs = GBS_2017, overlap = LAYERWISE,
  sync_ms = SYNC_2017, jitter_p99 = JITTER }
framework "nvcaffe" { aliases = { "NVCaffe", "nvidia-caffe" }, precision = "fp32",
  -- NVIDIA's fork of Caffe. No NVCaffe throughput tables are published (NF).
  -- Its compute efficiency is taken from tensorflow-2017's fitted one: the
  -- same year and the same cuDNN generation (BVLC Caffe's figures are from
  -- 2014, before cuDNN, and 3x lower). Calibrate on a GPU (tiersim
  -- calibrate engine --gpu --framework nvcaffe) to replace it. Memory as
  -- Caffe: every blob keeps data and diff (act_train 2), inference keeps
  -- all blobs.
  efficiency_as = "tensorflow-2017",
  context_mib = CTX, state_copies = SGD, act_infer = "all",
  act_train = { 2.0, "assumed", "as BVLC Caffe's blobs (data and diff); a planner could "
    .. "keep less", low = 1.1, high = 2.0 },
  -- Multi-GPU: no NVCaffe figures are published (NF). Caffe reduces the
  -- gradients layer by layer as backward produces them (BVLC/caffe
  -- src/caffe/parallel.cpp, solver option layer_wise_reduce, on by
  -- default): overlap 1. The exchange rate is the only one measured for
  -- a framework of that year: tensorflow-2017 on DGX-1 moved gradients at
  -- 80 GB/s x 0.035 = 2.8 GB/s per GPU, far below the link, i.e. the
  -- framework set the rate; taken here on any link (allreduce_gbs caps
  -- link bw x allreduce_eff). sync_ms as tensorflow-2017's. A measured
  -- speed-up should replace these.
  allreduce_eff = ALLRED_CAPPED, allreduce_gbs = GBS_2017, overlap = LAYERWISE,
  sync_ms = SYNC_2017, jitter_p99 = JITTER }
framework "mxnet" { aliases = { "MXNet" }, precision = "fp32",
  -- act_train 1.1, bounded by published batches with engine/netdef.c's
  -- activation counts: perf.md trains ResNet-50 at batch 128 on a 16 GB
  -- V100, so <= 1.13; example/image-classification/README.md needs
  -- MXNET_BACKWARD_DO_MIRROR=1 to train Inception-v3 at batch 128 on one
  -- K80, so > 0.93. (The same README's 10 GB at batch 64 would give 1.65,
  -- but it predates perf.md's MXNet 1.2 memory planner.)
  -- act_infer 4: docs/faq/perf.md runs VGG16 inference at batch 128 on a
  -- 16 GB V100 but not on a 12 GB K80 (OOM), where Inception-v3 fits at
  -- 128; with engine/netdef.c's sizes any k in (3.36, 4.86) reproduces
  -- all three; 4 is about the middle.
  context_mib = CTX, state_copies = SGD,
  act_train = { 1.1, "measured", MX_ACT, low = 0.93, high = 1.13 },
  act_infer = { 4, "measured", MX_INFER, low = 3.36, high = 4.86 },
  -- Multi-GPU: no MXNet figures in the sources (NF); its kvstore 'device'
  -- reduces on the GPUs while backward runs: as nvcaffe.
  allreduce_eff = ALLRED_CAPPED, allreduce_gbs = GBS_2017, overlap = LAYERWISE,
  sync_ms = SYNC_2017, jitter_p99 = JITTER }
local TF_FIT = "fit on tensorflow/tensorflow docs_src/performance/benchmarks.md (May 2017), "
  .. "synthetic data, "
framework "tensorflow-2017" { aliases = { "tensorflow", "tf", "tf-2017" }, precision = "fp32",
  -- Memory: taken from mxnet; benchmarks.md trains ResNet-50 at batch 64
  -- on a K80 (12 GB), which bounds act_train at 1.57.
  context_mib = CTX, state_copies = SGD,
  act_train = { 1.1, "assumed", "mxnet's: " .. MX_ACT
    .. "; benchmarks.md trains ResNet-50 b64 on a K80: "
    .. "<= 1.57", low = 0.93, high = 1.57 },
  act_infer = { 4, "assumed", "mxnet's: " .. MX_INFER, low = 3.36, high = 4.86 },
  -- Fitted on tensorflow/tensorflow docs_src/performance/benchmarks.md
  -- (May 2017), synthetic data: nvlink1, overlap and sync_ms on DGX-1 P100
  -- at 1/2/4/8 GPUs for AlexNet, VGG16, ResNet-50, Inception-v3 (residuals
  -- within 5.2%); pcie3 on the GCE K80 8-GPU figures (within 12%: those
  -- runs used parameter servers, not a ring). anchors.lua "scaling"
  -- checks both. Other links: as NVLink 1.
  allreduce_eff = {
    nvlink1 = { 0.035, "measured", TF_FIT .. "DGX-1 P100 at 1/2/4/8 GPUs: within 5.2%" },
    pcie3 = { 0.07, "measured", TF_FIT .. "GCE K80 at 8 GPUs: within 12% (parameter servers)" },
    default = { 0.035, "assumed", "other links: as NVLink 1", low = 0.0175, high = 1.0 } },
  overlap = { 1.0, "measured", TF_FIT .. "DGX-1 P100 at 1/2/4/8 GPUs" },
  sync_ms = { 8.5, "measured", TF_FIT .. "DGX-1 P100 at 1/2/4/8 GPUs" },
  jitter_p99 = JITTER }
framework "tiersim-cudnn" { aliases = { "cudnn" }, precision = "fp32",
  -- tiersim's own cuda backend (engine/cuda.c): each layer a cuDNN or
  -- cuBLAS call, FP32, every tensor keeps its output and its gradient.
  -- No published figures: `tiersim calibrate engine --gpu` measures its
  -- anchors and its act_train on the GPU at hand and writes them into a
  -- profile that replaces this entry. Until then: compute efficiency as
  -- tensorflow-2017 (cuDNN layer by layer, FP32), memory as Caffe (the
  -- backend also keeps ReLU outputs, so it needs somewhat more).
  efficiency_as = "tensorflow-2017",
  context_mib = CTX, state_copies = SGD, act_infer = "all",
  act_train = { 2.0, "assumed", "as Caffe's blobs; the backend also keeps ReLU outputs, so "
    .. "somewhat more until calibrate engine --gpu measures it", low = 2.0, high = 3.0 },
  -- one GPU per engine (NCCL not built): multi-GPU as nvcaffe
  allreduce_eff = ALLRED_CAPPED, allreduce_gbs = GBS_2017, overlap = LAYERWISE,
  sync_ms = SYNC_2017, jitter_p99 = JITTER }
framework "pytorch-2021" { aliases = { "pytorch", "pytorch-dali", "modern" }, precision = "amp",
  -- NVIDIA DeepLearningExamples PyTorch ResNet-50 v1.5 (NGC pytorch-21.03,
  -- DALI data loading, DDP with NCCL).
  -- Memory: taken from mxnet; the README trains at batch 256 AMP (FP16
  -- activations) on a 16 GB V100, which bounds act_train at 1.13.
  context_mib = CTX, state_copies = SGD,
  act_train = { 1.1, "assumed", "mxnet's: " .. MX_ACT
    .. "; the DLE README trains b256 AMP on a 16 GB V100: "
    .. "<= 1.13", low = 0.93, high = 1.13 },
  act_infer = { 4, "assumed", "mxnet's: " .. MX_INFER, low = 3.36, high = 4.86 },
  -- DDP with NCCL is taken to reach the link's bandwidth and to overlap
  -- the allreduce with backward layer by layer (Li et al., "PyTorch
  -- Distributed", VLDB 2020); what the README's 8-GPU figures lose beyond
  -- that (DGX A100 TF32 and AMP, DGX-1 V100 FP32 and AMP) is charged per
  -- step: sync_ms fitted on them (smallest largest residual: 5.5%).
  allreduce_eff = { 1.0, "assumed", "DDP with NCCL taken to reach the link's bandwidth (Li et "
    .. "al., PyTorch Distributed, VLDB 2020)", low = 0.5, high = 1.0 },
  overlap = { 1.0, "assumed", "DDP overlaps the allreduce with backward bucket by bucket (Li "
    .. "et al., VLDB 2020)", low = 0.5, high = 1.0 },
  sync_ms = { 20, "measured", "fit on NVIDIA DeepLearningExamples PyTorch ResNet-50 v1.5 "
    .. "README 8-GPU figures (DGX A100 TF32/AMP, DGX-1 V100 FP32/AMP): within 5.5%" },
  -- Same README, V100 inference latency: p99 within a few % of the mean
  -- from batch 32 (28.67 vs 29.37 ms at 32; 202.88 vs 214.48 ms at 256).
  jitter_p99 = { 1.02, "measured", "NVIDIA DeepLearningExamples PyTorch ResNet-50 v1.5 README, "
    .. "V100 inference: p99 vs mean 29.37/28.67 ms at b32, 214.48/202.88 ms at b256",
    low = 1.0, high = 1.06 } }
