-- cost_resnet50.lua — what a ResNet-50 epoch costs on today's cloud: PyTorch
-- (AMP) training on an 8-GPU instance from an ImageFolder of ImageNet JPEGs,
-- the instance's own local NVMe against network volumes. Not an experiment
-- of the study: its question (which disk tier, how many vCPUs, how much
-- memory) asked in dollars for today's hardware.
--
--   tiersim compare scripts/cost_resnet50.lua --virtual --band \
--     --tiers nvme-local,aws-gp3,aws-gp3-16k,aws-io2
--
-- The instance (tiersim prices) sets the vCPUs (decode workers), memory
-- (page cache), GPUs and host CPU; instance=p5.48xlarge for H100s. Each row
-- carries $/hour, $/epoch and the idle GPUs' share, with the band that the
-- ranged prices and --band make. The dataset is 1,281,167 JPEGs of about
-- 110 KB (ImageNet's training set) in virtual time; count= scales it.
local p = params{
  instance = "p4d.24xlarge",
  count = tiersim.virtual and 1281167 or 2000,
  iterations = tiersim.virtual and 400 or 10,
  batch = 256,          -- per GPU, as NVIDIA's ResNet-50 recipe for A100 AMP
  capacity = "500GiB",  -- the network volume (a run on nvme-local is one local disk)
}

report{ title = "ResNet-50 training (PyTorch AMP) on " .. p.instance .. ": $ per epoch by volume" }
instance(p.instance)
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "aws-gp3", capacity = p.capacity }
pipeline{ source = "folder", shuffle = true, qd = 64, prefetch = 4 }
engine{ model = "resnet50", framework = "pytorch-2021", precision = "amp", mode = "train",
        batch = p.batch }
run{ iterations = p.iterations, warmup = 5 }
