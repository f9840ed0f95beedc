-- main.lua — the built-in default: how much do GoogLeNet inference and
-- training on a P100 care about the disk tier? As the study ran NVCaffe:
-- inference reads the ImageNet validation LMDB, training the train LMDB,
-- both raw Datums (convert_imageset --resize 256x256) read with a cursor
-- through tierfs; one loader worker per emulated vCPU crops, flips and
-- normalizes each Datum into a simulated P100.
--
-- The instance is Alibaba's gn5-c8g1.2xlarge: 8 vCPU, 60 GiB, one P100, Intel
-- Xeon E5-2682 v4 (AlibabaCloudDocs/ecs, "Instance families", gn5). The CPU is
-- its host profile (tiersim hosts): each worker is charged what a raw Datum
-- costs one E5-2682 v4 core, so neither this host's speed nor its core count
-- shapes the answer; host=this-machine charges this host's calibration.
--
--   tiersim compare scripts/main.lua --tiers nvme-local,ssd-cloud,ultra-cloud
--
-- Scaled to run in a few minutes on a 2-core machine; count=, val=,
-- iterations= and vcpus= scale it up, --virtual predicts ImageNet scale
-- (1,281,167 train and 50,000 val images: 252 GB and 9.8 GB of LMDB).
local p = params{
  count = tiersim.virtual and 1281167 or 2000,
  val = tiersim.virtual and 50000 or 2000,
  iterations = tiersim.virtual and 1000 or 30,
  warmup = 3,
  vcpus = 8,
  mem = "60GiB",
  capacity = "500GiB",
  host = "xeon-e5-2682v4",
}

report{ title = "GoogLeNet on a P100 (gn5, NVCaffe, LMDB): inference and training per disk tier" }
mount{ tier = "ssd-cloud", capacity = p.capacity, mem = p.mem }
-- Caffe's data layer reads its LMDB with one cursor in stored order (the
-- conversion shuffled it once); the TEST phase crops the centre.
pipeline{ source = "lmdb", shuffle = false, vcpus = p.vcpus, qd = 16, prefetch = 4,
          host = p.host }

dataset{ kind = "imagenet-lmdb", count = p.val }
pipeline{ augment = false }
engine{ model = "googlenet", gpu = "P100-PCIe", framework = "nvcaffe",
        mode = "infer", batch = 50 }
run{ iterations = p.iterations, warmup = p.warmup, label = "inference" }

dataset{ kind = "imagenet-lmdb", count = p.count }
pipeline{ augment = true }
engine{ mode = "train", batch = 64 }
run{ iterations = p.iterations, warmup = p.warmup, label = "training" }
