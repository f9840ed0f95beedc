-- imagenet_epoch.lua — the virtual-time speed case of bench/speed.sh: one
-- epoch of ImageNet (1,281,167 JPEGs, shuffled) training ResNet-50 on one
-- V100 from ssd-cloud, with a 60 GiB page-cache model: the dataset (about
-- 140 GB) is larger than the cache, so every request goes through the
-- model's lookups and evictions.
--
--   tiersim run bench/imagenet_epoch.lua --virtual
local p = params{ count = 1281167, batch = 256, mem = "60GiB" }
report{ title = "ImageNet epoch, ResNet-50 on one V100 (speed case)" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "ssd-cloud", capacity = "500GiB", mem = p.mem }
pipeline{ source = "folder", shuffle = true, vcpus = 8, qd = 16, prefetch = 4 }
engine{ model = "resnet50", gpu = "V100-SXM2", framework = "pytorch-2021", mode = "train",
        batch = p.batch }
run{ iterations = math.ceil(p.count / p.batch), warmup = 0 }
