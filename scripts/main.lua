-- main.lua — the built-in default: how much do GoogLeNet inference and
-- training on a P100 care about the disk tier? A small generated
-- ImageNet-like JPEG tree is read through tierfs and decoded by the loader's
-- workers, one per emulated vCPU, into a simulated P100.
--
-- The instance is Alibaba's gn5-c8g1.2xlarge: 8 vCPU, 60 GiB, one P100
-- (AlibabaCloudDocs/ecs, "Instance families", gn5). With more vCPUs than
-- this host has cores, decode is charged at the cost measured on this host
-- (tiersim calibrate decode; done once automatically), so the host's own
-- core count does not cap the emulated instance. vcpus=2 decodes for real.
--
--   tiersim compare scripts/main.lua --tiers nvme-local,ssd-cloud,ultra-cloud
--
-- Scaled to run in a few minutes on a 2-core machine; count=, iterations=
-- and vcpus= scale it up, --virtual predicts ImageNet scale.
local p = params{
  count = tiersim.virtual and 1281167 or 2000,
  iterations = tiersim.virtual and 1000 or 30,
  warmup = 3,
  vcpus = 8,
  mem = "60GiB",
  capacity = "500GiB",
}

report{ title = "GoogLeNet on a P100: inference and training per disk tier" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "ssd-cloud", capacity = p.capacity, mem = p.mem }
pipeline{ vcpus = p.vcpus, qd = 16, prefetch = 4 }

engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe",
        mode = "infer", batch = 50 }
run{ iterations = p.iterations, warmup = p.warmup, label = "inference" }

engine{ mode = "train", batch = 64 }
run{ iterations = p.iterations, warmup = p.warmup, label = "training" }
