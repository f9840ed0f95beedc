-- folder_pillow.lua — the loader of the loader-pytorch-pillow-* cases
-- (validation/cases): a PyTorch DataLoader's worker processes decoding a
-- class-per-folder JPEG tree with Pillow (torchvision's training transform:
-- shorter side 256, random crop 224, flip, normalize), the files in the page
-- cache, the consumer taking each batch with no step. In virtual time: the
-- folder source over the same generated set (tiersim dataset make
-- imagenet-jpeg --count COUNT, seed 1), one decode worker per DataLoader
-- worker, each charged the host profile's cost per image (pipeline/hosts.lua,
-- HOST/pillow) and its DataLoader worker's own cost per sample and per batch
-- (loader_sample_ns, loader_batch_ns), which the folder source charges. Counted as bench/pillow_loader.py counts the real run: WARMUP
-- batches left out, then ITERATIONS batches of BATCH.
local p = params{
  count = 2000,
  workers = 1,
  host = "xeon-kvm-2vcpu/pillow",
  batch = 32,
  iterations = 50,
  warmup = 3,
}

report{ title = "PyTorch DataLoader (Pillow) over a JPEG folder in the page cache" }
dataset{ kind = "imagenet-jpeg", count = p.count }
mount{ tier = "unlimited", capacity = "100GiB", mem = "8GiB" }
pipeline{ source = "folder", vcpus = p.workers, qd = 16, prefetch = 2, shuffle = true,
          augment = true, host = p.host }
engine{ backend = "null", step = 0, batch = p.batch, model = "resnet50" }
run{ iterations = p.iterations, warmup = p.warmup }
