-- Network profiles for the engine's sim backend: one model "NAME" { ... }
-- declaration per network.
--
-- The layer graphs live in engine/netdef.c (shared with the cuda backend);
-- parameter counts, FLOPs and activation sizes come from there. The figures
-- below are the published counts the layer graphs are checked against
-- (tests/engine), and the batch-saturation constant of each network.
--
--   netdef     layer graph name in engine/netdef.c
--   unit       what one sample is
--   params     published parameter count (nil where none is published)
--   gmacs      published forward multiply-adds per sample, in G
--   b_half     batch at which one V100 reaches half its peak throughput on
--              this network: throughput(b) = X * b / (b + b_half). Fitted
--              (least squares in log throughput) on MXNet's V100 inference
--              table for batches 1/8/32/64/128 (apache/mxnet docs/faq/perf.md,
--              MXNet 1.2.0, cuDNN 7.0.5). Scaled to other GPUs by their FP32
--              peak (checked on the K80 table of the same page: within 1.5x).
--
-- torchvision = pytorch/vision torchvision/models/*.py weight metadata
-- ("num_params", "_ops" = GMACs).
--
-- Every number is { VALUE, LABEL, "source" [, low = , high = ] } (luadata's
-- evidence schema): params and gmacs "spec" (torchvision's published
-- metadata), a fitted b_half "measured" (MXNet's table), a borrowed one
-- "assumed" with low and high: the smallest and largest fitted b_half
-- (vgg16 2.65, alexnet 16.6).
local MX = "fit on apache/mxnet docs/faq/perf.md V100 inference, batches 1-128"
local BORROWED = "no batch table published: ResNet-50's fit taken; the range is "
  .. "the fitted b_half of the other networks"
model "alexnet" { aliases = { "AlexNet", "caffenet" }, netdef = "alexnet", unit = "images",
  params = { 61100840, "spec", "torchvision alexnet.py" },
  gmacs = { 0.714, "spec", "torchvision alexnet.py" },
  b_half = { 16.6, "measured", MX .. "; X = 11806 img/s, rms error 1.8%" } }
model "googlenet" { aliases = { "GoogLeNet", "inception1" }, netdef = "googlenet",
  unit = "images",
  -- BVLC Caffe bvlc_googlenet: no parameter count published in the repo.
  -- b_half from MXNet's Inception-BN row (GoogLeNet with batch norm), the
  -- closest network the table has: X = 2666 img/s, rms 1.9%.
  b_half = { 15.8, "assumed", MX .. ", Inception-BN's row: GoogLeNet has none",
    low = 2.65, high = 16.6 } }
model "resnet50" { aliases = { "ResNet-50", "resnet-50", "rn50" }, netdef = "resnet50",
  unit = "images",
  params = { 25557032, "spec", "torchvision resnet.py" },
  gmacs = { 4.089, "spec", "torchvision resnet.py" },
  b_half = { 7.0, "measured", MX .. "; X = 1303 img/s, rms 0.6%" } }
model "vgg16" { aliases = { "VGG16", "vgg-16" }, netdef = "vgg16", unit = "images",
  params = { 138357544, "spec", "torchvision vgg.py" },
  gmacs = { 15.47, "spec", "torchvision vgg.py" },
  b_half = { 2.65, "measured", MX .. "; X = 700 img/s, rms 11.5% (flat from batch 32)" } }
model "inception3" { aliases = { "Inception-v3", "inception-v3", "incv3" },
  netdef = "inception3", unit = "images",
  params = { 27161264, "spec", "torchvision inception.py (with the aux head)" },
  gmacs = { 5.713, "spec", "torchvision inception.py (with the aux head)" },
  b_half = { 10.55, "measured", MX .. "; X = 1035 img/s, rms 3.5%" } }
model "cifar10" { aliases = { "cifar10-net", "cifar-10" }, netdef = "cifar10",
  unit = "images",
  -- tensorflow/models tutorials/image/cifar10: parameter count not stated
  -- there. No batch table published: b_half taken from ResNet-50 (assumption).
  b_half = { 7.0, "assumed", BORROWED, low = 2.65, high = 16.6 } }
model "lstm-ptb-medium" { aliases = { "lstm-medium", "ptb-medium" },
  netdef = "lstm-ptb-medium", unit = "sequences",
  -- tensorflow/models tutorials/rnn/ptb/ptb_word_lm.py MediumConfig: 2 x 650,
  -- 35 steps, batch 20. Words/s on any GPU: not published (NF).
  -- b_half: no batch table published; taken from ResNet-50 (assumption).
  b_half = { 7.0, "assumed", BORROWED, low = 2.65, high = 16.6 } }
model "lstm-ptb-large" { aliases = { "lstm-large", "ptb-large" },
  netdef = "lstm-ptb-large", unit = "sequences",
  -- ptb_word_lm.py LargeConfig: 2 x 1500, 35 steps, batch 20. NF as above.
  b_half = { 7.0, "assumed", BORROWED, low = 2.65, high = 16.6 } }
