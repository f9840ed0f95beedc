-- prices.lua — what instances and volumes cost, per provider, region and
-- date: the money side of the tier and host profiles.
--
--   instance "NAME" { provider =, region =, shape = "source", vcpus =, mem_gib =,
--                     gpus =, gpu =, host =, local_disk =, ebs = EBS, hourly = PRICE }
--   volume "NAME"   { provider =, region =, tiers = { "TIER", ... },
--                     gib_month = PRICE, iops_month = PRICE, mibps_month = PRICE }
--
-- PRICE is { VALUE, "spec"|"assumed", "source", date = "YYYY-MM[-DD]",
-- low = , high = } in US dollars: spec is a published price list (the
-- source names it, with its address), assumed is what nothing published
-- gives (the source says why; low and high required). date is when the
-- price held. low/high are the ends a band uses.
--
-- instance: shape names where vCPUs, memory, GPUs and local disks come from.
--   host is a host profile of pipeline/hosts.lua (the CPU the pipeline is
--   charged for); local_disk = { tier = "TIER", count = N, gib = G } the
--   local disks it comes with (their price is the instance's); ebs the
--   instance's own limits on its traffic to network volumes (below).
--
-- EBS = { iops =, mbps =, max_iops =, max_mbps =, burst_s = }, each number
-- { VALUE, LABEL, "source" } as in the host profiles: the baseline IOPS and
-- MB/s (10^6 bytes), and for an instance that bursts the most it runs at
-- and for how long from a full bucket. A run on the instance (tiersim run
-- with instance "NAME", tiersim dlio --instance NAME, a validation case's
-- config.device.instance) caps its AWS volumes' traffic by them above each
-- volume's own caps (tier/tier_base.h, struct ts_tier_ebs). The source is
-- AWS's table "Amazon EBS-optimized instances" (the awsdocs mirror,
-- github.com/awsdocs/amazon-ec2-user-guide doc_source/ebs-optimized.md @
-- 0446b90b): per instance type the maximum bandwidth (Mbps), throughput
-- (MB/s, 128 KiB I/O) and IOPS (16 KiB I/O), and for the types marked *
-- a baseline table, those "can support maximum performance for 30 minutes
-- at least once every 24 hours". How the instance's credits come back is
-- not published: the model refills them at the baseline, as a volume's
-- (assumed; a full refill then takes 30 min x (max - baseline) / baseline,
-- 2.5 h on a t3.medium, where AWS promises only once a day).
-- volume: tiers are the tier profiles (tier/tiers.lua) this price applies to;
--   one without tiers has no tier model yet and is listed only.
--   iops_month and mibps_month charge what a tier provisions above
--   included = N (IOPS, MiB/s) at the tier's capacity; iops_month may step
--   down: steps = { { FROM_IOPS, PRICE }, ... } (io2).
-- A month is 730 hours (the AWS Pricing Calculator's and Azure's monthly
-- figure); per-month prices are turned into hourly ones by it.

-- ---------------------------------------------------------------------------
-- The study's instances, Alibaba Cloud gn5 (P100), 2017. Shapes: the
-- instance-family doc (AlibabaCloudDocs/ecs, "Instance families", gn5;
-- the project reference on the study's instances, §1.3): vCPU / GiB / local NVMe GiB / P100s.
-- No 2017 gn5 price list was found. Each is assumed as a GPU part plus a
-- vCPU part, bracketed by the GPU instances AWS listed then: p2.xlarge (one
-- K80, $0.90/h) and p3.2xlarge (one V100, $3.06/h, 2017-10; the V100 is
-- faster than a P100): a P100 $1.8/h (1.2..2.8), a Broadwell vCPU $0.05/h
-- (0.04..0.07; a compute-class vCPU of 2017, c4.2xlarge $0.398/h for 8).
local function gn5(name, vcpus, mem, disk_gib, gpus)
	instance(name) {
		provider = "alibaba", region = "cn-hangzhou",
		shape = "AlibabaCloudDocs/ecs 'Instance families', gn5 (github.com/AlibabaCloudDocs/ecs)",
		vcpus = vcpus, mem_gib = mem, gpus = gpus, gpu = "P100-PCIe",
		host = "xeon-e5-2682v4",
		local_disk = { tier = "nvme-local", count = 1, gib = disk_gib },
		hourly = { gpus * 1.8 + vcpus * 0.05, "assumed",
			   "no 2017 gn5 price found: a P100 at $1.8/h (1.2..2.8; between AWS p2.xlarge's K80 at $0.90 and p3.2xlarge's V100 at $3.06, 2017) plus $0.05 per vCPU-hour (0.04..0.07)",
			   date = "2017", low = gpus * 1.2 + vcpus * 0.04, high = gpus * 2.8 + vcpus * 0.07 },
	}
end
gn5("gn5-c4g1.xlarge", 4, 30, 440, 1)
gn5("gn5-c8g1.2xlarge", 8, 60, 440, 1) -- scripts/main.lua, tier_training.lua
gn5("gn5-c4g1.2xlarge", 8, 60, 880, 2)
gn5("gn5-c8g1.4xlarge", 16, 120, 880, 2)
gn5("gn5-c28g1.7xlarge", 28, 112, 440, 1)
gn5("gn5-c8g1.8xlarge", 32, 240, 1760, 4)
gn5("gn5-c8g1.14xlarge", 54, 480, 3520, 8)

-- The study's 2017 disks, Alibaba 华东1 (cn-hangzhou): SSD云盘 1.0 and 高效云盘
-- 0.35 CNY/GB-month (developer.aliyun.com/article/548572, the 2017 ECS doc
-- "云盘参数"), in dollars at 2017's CNY/USD (6.47 at the year's end to 6.90 at
-- its start; 6.75 the year's average, Federal Reserve H.10).
volume "alibaba-ssd-cloud-2017" {
	provider = "alibaba", region = "cn-hangzhou", tiers = { "ssd-cloud" },
	gib_month = { 1.0 / 6.75, "spec", "developer.aliyun.com/article/548572: SSD云盘 1.0 CNY/GB-month (华东1), at 6.75 CNY/USD; ends: the year's rates 6.90..6.47",
		      date = "2017", low = 1.0 / 6.90, high = 1.0 / 6.47 },
}
volume "alibaba-ultra-cloud-2017" {
	provider = "alibaba", region = "cn-hangzhou", tiers = { "ultra-cloud" },
	gib_month = { 0.35 / 6.75, "spec", "developer.aliyun.com/article/548572: 高效云盘 0.35 CNY/GB-month (华东1), at 6.75 CNY/USD; ends: the year's rates 6.90..6.47",
		      date = "2017", low = 0.35 / 6.90, high = 0.35 / 6.47 },
}
-- Local disks are not sold apart: they come with the instance.
volume "local-nvme" {
	provider = "any", region = "any", tiers = { "nvme-local" },
	gib_month = { 0, "spec", "a local disk comes with its instance and is billed in the instance's hourly price (Alibaba 'Local disks' doc: not bought separately; AWS instance store: included)",
		      date = "2017" },
}

-- ---------------------------------------------------------------------------
-- Alibaba Cloud today. No ECS ESSD price list was retrieved; the published
-- USD per GB-month of the same ESSD levels under Alibaba's PolarDB
-- (alibabacloud.com/help/en/polardb/polardb-for-mysql/billing-methods-for-storage,
-- single zone, Chinese mainland: PL0 0.08, PL1 0.15, PL2 0.31; PL3 taken as
-- twice PL2 as the dual-zone rows are, 0.98 vs 0.49) and ClickHouse's
-- (alibabacloud.com/help/ja/clickhouse/.../storage-fees, double replica:
-- PL0 0.153, PL1 0.306, PL2 0.612 per two copies) stand in for them.
local function essd(level, tier, v, lo, hi)
	volume("alibaba-essd-" .. level) {
		provider = "alibaba", region = "cn-hangzhou", tiers = { tier },
		gib_month = { v, "assumed", "ECS ESSD " .. level:upper() .. "'s own list not retrieved: Alibaba's PolarDB single-zone price of the same level (" .. v .. " USD/GB-month), ClickHouse's per copy agrees within 2%; range: 0.75x..1.3x",
			      date = "2026", low = lo, high = hi },
	}
end
essd("pl0", "essd-pl0", 0.08, 0.06, 0.104)
essd("pl1", "essd-pl1", 0.15, 0.1125, 0.195)
essd("pl2", "essd-pl2", 0.31, 0.2325, 0.403)
essd("pl3", "essd-pl3", 0.62, 0.465, 0.806)
-- Standard SSD and ultra disk today: Alibaba's ENS lists all-flash 0.1408 and
-- ultra 0.0493 USD/GB-month (alibabacloud.com/help/en/ens/product-overview/
-- cloud-disk-billing); ECS's own list was not retrieved.
volume "alibaba-ssd-cloud" {
	provider = "alibaba", region = "cn-hangzhou", tiers = { "ssd-cloud-2024" },
	gib_month = { 0.1408, "assumed", "ECS list not retrieved: Alibaba ENS's all-flash disk, 0.1408 USD/GB-month (alibabacloud.com/help/en/ens/product-overview/cloud-disk-billing); range 0.75x..1.3x",
		      date = "2026", low = 0.1056, high = 0.183 },
}
volume "alibaba-ultra-cloud" {
	provider = "alibaba", region = "cn-hangzhou", tiers = { "ultra-cloud-2024" },
	gib_month = { 0.0493, "assumed", "ECS list not retrieved: Alibaba ENS's ultra disk, 0.0493 USD/GB-month (alibabacloud.com/help/en/ens/product-overview/cloud-disk-billing); range 0.75x..1.3x",
		      date = "2026", low = 0.037, high = 0.0641 },
}

-- ---------------------------------------------------------------------------
-- AWS, us-east-1, On-Demand Linux. Shapes and caps: docs.aws.amazon.com
-- AWSEC2 accelerated-computing-instances (p3, p4d, p5) and the Capacity
-- Blocks table (aws.amazon.com/ec2/capacityblocks/pricing, mirrored at
-- sibshop.uat.jiralog.com/ec2/capacityblocks/pricing, 2024-12: p4d.24xlarge
-- 8 x A100, 96 vCPU, 1152 GiB, 8 x 1 TB NVMe; p5.48xlarge 8 x H100, 192
-- vCPU, 2048 GiB, 8 x 3.84 TB NVMe). EBS bandwidth: p4d 19 Gbps, p5 80 Gbps,
-- p3.2xlarge 1.75 Gbps (the same doc), in MiB/s (Gbps x 1e9 / 8 / 2^20).
-- Hosts: p3 runs the Xeon E5-2686 v4 (Broadwell, the gn5 CPU's sibling),
-- p4d the Xeon Platinum 8275CL (Cascade Lake; the Ice Lake profile stands
-- in), p5 the EPYC 7R13 (Milan; the EPYC 7713 profile). gpu names the engine
-- profile (engine/profiles/gpus.lua): p4d's A100s have 40 GB, the profile 80.
instance "p3.2xlarge" {
	provider = "aws", region = "us-east-1",
	shape = "docs.aws.amazon.com/AWSEC2/latest/UserGuide/accelerated-computing-instances.html (p3)",
	vcpus = 8, mem_gib = 61, gpus = 1, gpu = "V100", host = "xeon-e5-2682v4",
	ebs = { iops = { 10000, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md @ 0446b90b): p3.2xlarge 10,000 IOPS (16 KiB I/O), no burst" },
		mbps = { 218.75, "spec", "same table: p3.2xlarge 1,750 Mbps, 218.75 MB/s (128 KiB I/O), no burst" } },
	hourly = { 3.06, "spec", "p3.2xlarge On-Demand $3.06/h, AWS's list from its launch (2017-10-25), as published instance tables quote it (aws.amazon.com/ec2/pricing/on-demand)", date = "2017-10" },
}
instance "p4d.24xlarge" {
	provider = "aws", region = "us-east-1",
	shape = "aws.amazon.com/ec2/capacityblocks/pricing (2024-12): 8 x A100, 96 vCPU, 1152 GiB, 8 x 1 TB NVMe; EBS 19 Gbps (accelerated-computing-instances doc)",
	vcpus = 96, mem_gib = 1152, gpus = 8, gpu = "A100", host = "xeon-8375c",
	local_disk = { tier = "nvme-local", count = 8, gib = 1000 },
	ebs = { iops = { 80000, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md @ 0446b90b): p4d 80,000 IOPS (16 KiB I/O; the row reads 'p4d.2xlarge', the only p4d size being 24xlarge), no burst" },
		mbps = { 2375, "spec", "same table: p4d 19,000 Mbps, 2,375 MB/s (128 KiB I/O), no burst" } },
	hourly = { 32.7726, "spec", "p4d.24xlarge On-Demand us-east-1 about $32.77/h (xither.com 'GPU compute costs', Q2 2024); low end: the Capacity Blocks rate $14.75/h (aws.amazon.com/ec2/capacityblocks/pricing, 2024-12), below which the June 2025 On-Demand cuts (usage.ai, 2026-06-30) did not go",
		   date = "2024-06", low = 14.75, high = 32.7726 },
}
instance "p5.48xlarge" {
	provider = "aws", region = "us-east-1",
	shape = "aws.amazon.com/ec2/capacityblocks/pricing (2024-12): 8 x H100, 192 vCPU, 2048 GiB, 8 x 3.84 TB NVMe; EBS 80 Gbps (accelerated-computing-instances doc)",
	vcpus = 192, mem_gib = 2048, gpus = 8, gpu = "H100", host = "epyc-7713",
	local_disk = { tier = "nvme-local", count = 8, gib = 3840 },
	-- Not in the table's mirrored version (p5 came later): the bandwidth
	-- of the accelerated-computing doc only, no IOPS figure.
	ebs = { mbps = { 80e9 / 8 / 1e6, "spec", "accelerated-computing-instances doc: p5.48xlarge EBS bandwidth 80 Gbps = 10,000 MB/s" } },
	hourly = { 98.32 * 0.56, "assumed",
		   "list $98.32/h at launch (nextplatform.com 2023-07-27); AWS cut P5 On-Demand by up to 45% in June 2025 (usage.ai 'LLM cost optimization on AWS', 2026-06-30), the exact new list not retrieved: 0.56 x; range: the Capacity Blocks rate $39.33 (2024-12) to the old list",
		   date = "2025-06", low = 39.33, high = 98.32 },
}

-- A small burstable instance, the one fio ran on in the st1 and gp3 cases
-- of the validation corpus (validation/cases/ebs-st1-1000g-*,
-- ebs-gp3-16000-t3medium-*): its EBS limits bind a provisioned gp3.
instance "t3.medium" {
	provider = "aws", region = "us-east-1",
	shape = "awsdocs/amazon-ec2-user-guide instance tables: t3.medium 2 vCPU, 4 GiB; EBS limits doc_source/ebs-optimized.md @ 0446b90b",
	vcpus = 2, mem_gib = 4,
	ebs = {
		iops = { 2000, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md @ 0446b90b), baseline table: t3.medium 2,000 IOPS (16 KiB I/O)" },
		mbps = { 43.43, "spec", "same, baseline table: t3.medium 347 Mbps, 43.43 MB/s (128 KiB I/O)" },
		max_iops = { 11800, "spec", "same, maximum table: t3.medium * 11,800 IOPS (16 KiB I/O)" },
		max_mbps = { 260.57, "spec", "same, maximum table: t3.medium * 2,085 Mbps, 260.57 MB/s (128 KiB I/O)" },
		burst_s = { 1800, "spec", "same: the types marked * 'can support maximum performance for 30 minutes at least once every 24 hours'" },
	},
	hourly = { 0.0416, "spec", "t3.medium On-Demand Linux us-east-1 $0.0416/h (hacecuentas.com EC2 cost calculator, citing aws.amazon.com/ec2/pricing/on-demand, reviewed 2026-04-17)", date = "2026-04" },
}

-- The instance the miztiik/ebs-gp3-perf runs used (validation/cases/
-- ebs-gp3-4000-raid0-*: a RAID-0 of two gp3 volumes), whose EBS limits
-- bind the array's sum.
instance "r5b.large" {
	provider = "aws", region = "us-east-1",
	shape = "awsdocs/amazon-ec2-user-guide instance tables: r5b.large 2 vCPU, 16 GiB; EBS limits doc_source/ebs-optimized.md @ 0446b90b",
	vcpus = 2, mem_gib = 16,
	ebs = {
		iops = { 5417, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md @ 0446b90b), baseline table: r5b.large 5,417 IOPS (16 KiB I/O)" },
		mbps = { 156.25, "spec", "same, baseline table: r5b.large 1,250 Mbps, 156.25 MB/s (128 KiB I/O)" },
		max_iops = { 43333, "spec", "same, maximum table: r5b.large * 43,333 IOPS (16 KiB I/O)" },
		max_mbps = { 1250, "spec", "same, maximum table: r5b.large * 10,000 Mbps, 1,250 MB/s (128 KiB I/O)" },
		burst_s = { 1800, "spec", "same: the types marked * 'can support maximum performance for 30 minutes at least once every 24 hours'" },
	},
	hourly = { 0.149, "assumed", "r5b.large On-Demand Linux us-east-1, about $0.149/h (aws.amazon.com/ec2/pricing/on-demand, not retrieved here); range: r5.large's $0.126 (the same vCPUs and memory without r5b's EBS bandwidth) to a fifth above", date = "2021-01", low = 0.126, high = 0.18 },
}

-- The instance the gp2 and gp3 runs of Atom-oh/kubernetes-docs used
-- (validation/cases/ebs-gp2-100g-m5xlarge-*, ebs-gp3-100g-m5xlarge-*: an
-- EKS node in ap-northeast-2, 2026): its EBS limits sit above a 100 GiB
-- gp2's or a baseline gp3's caps, which the study chose it for.
instance "m5.xlarge" {
	provider = "aws", region = "ap-northeast-2",
	shape = "awsdocs/amazon-ec2-user-guide instance tables: m5.xlarge 4 vCPU, 16 GiB; EBS limits doc_source/ebs-optimized.md @ 0446b90b",
	vcpus = 4, mem_gib = 16,
	ebs = {
		iops = { 6000, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md @ 0446b90b), baseline table: m5.xlarge 6,000 IOPS (16 KiB I/O)" },
		mbps = { 143.75, "spec", "same, baseline table: m5.xlarge 1,150 Mbps, 143.75 MB/s (128 KiB I/O)" },
		max_iops = { 18750, "spec", "same, maximum table: m5.xlarge * 18,750 IOPS (16 KiB I/O)" },
		max_mbps = { 593.75, "spec", "same, maximum table: m5.xlarge * 4,750 Mbps, 593.75 MB/s (128 KiB I/O)" },
		burst_s = { 1800, "spec", "same: the types marked * 'can support maximum performance for 30 minutes at least once every 24 hours'" },
	},
	hourly = { 0.236, "assumed", "m5.xlarge On-Demand Linux ap-northeast-2 (the runs' region), $0.236/h as public price tables copy aws.amazon.com/ec2/pricing/on-demand (not retrieved here); range: us-east-1's $0.192 to a tenth above", date = "2026-09", low = 0.192, high = 0.26 },
}

-- The instances an io2 volume was read on in the validation corpus
-- (validation/cases/ebs-io2-100g-*: aws-samples/ebs-benchmarking-results-
-- for-improved-performance-on-ebs-optimized-amd-instances, 2023-07). Their
-- EBS limits come from AWS's table (awsdocs/amazon-ec2-user-guide
-- doc_source/ebs-optimized.md, the version that lists C6a and M6a, before
-- 2023-04: both xlarge sizes * 1,061 Mbps / 132.625 MB/s / 6,000 IOPS
-- baseline, 6,666 Mbps / 833.33 MB/s / 26,667 IOPS maximum) and AWS's
-- announcements of 2023-04-03 (C6a, M6a) and 2023-06-29 (R6a), as the
-- study quotes them: the maximum EBS-optimized IOPS raised "by 60% on the
-- 32xlarge instance size and 50% on all other instance sizes", so
-- 26,667 x 1.5 = 40,000 at 16 KiB. The bandwidths were not said to change.
local function amd6(name, hourly, low, high)
	instance(name) {
		provider = "aws", region = "us-east-1",
		shape = "awsdocs/amazon-ec2-user-guide instance tables: " .. name .. " 4 vCPU (AMD EPYC 7R13); EBS limits doc_source/ebs-optimized.md (the version listing C6a/M6a) and AWS's 2023-04-03 EBS-optimized IOPS increase",
		vcpus = 4, mem_gib = name:sub(1, 1) == "c" and 8 or 16,
		ebs = {
			iops = { 6000, "spec", "AWS 'Amazon EBS-optimized instances' (doc_source/ebs-optimized.md, the version listing C6a/M6a), baseline: " .. name .. " 6,000 IOPS (16 KiB I/O); not said to change in 2023" },
			mbps = { 132.625, "spec", "same, baseline: " .. name .. " 1,061 Mbps, 132.625 MB/s (128 KiB I/O)" },
			max_iops = { 40000, "spec", "same table's maximum, 26,667 IOPS (16 KiB I/O), raised 50% by AWS's 2023-04-03 announcement for C6a and M6a sizes below 32xlarge (quoted in aws-samples/ebs-benchmarking-results-for-improved-performance-on-ebs-optimized-amd-instances README): 40,000" },
			max_mbps = { 833.33, "spec", "same table, maximum: " .. name .. " * 6,666 Mbps, 833.33 MB/s (128 KiB I/O)" },
			burst_s = { 1800, "spec", "same: the types marked * 'can support maximum performance for 30 minutes at least once every 24 hours'" },
		},
		hourly = { hourly, "assumed", name .. " On-Demand Linux us-east-1, $" .. hourly .. "/h as public price tables copy aws.amazon.com/ec2/pricing/on-demand (not retrieved here); range: a tenth either way", date = "2023-07", low = low, high = high },
	}
end
amd6("c6a.xlarge", 0.153, 0.138, 0.168)
amd6("m6a.xlarge", 0.1728, 0.156, 0.19)

-- EBS, us-east-1. gp2 $0.10 and io1/io2 storage $0.125 per GB-month,
-- $0.065 per provisioned IOPS-month (gist.github.com/turtlemonvh/
-- 3465e7d295403c61181590e95e5a620d, copied from aws.amazon.com/ebs/pricing
-- 2019-07-21); gp3 $0.08 (gitlab.com/gitlab-org/ci-cd/docker-machine MR 45,
-- citing the same page, 2020-12); io2's tiers $0.065 to 32,000 IOPS, $0.046
-- to 64,000, $0.032 above (awsnegotiations.com/ebs-io2-block-express-cost.html,
-- 2026; AWS's page writes the middle tier $0.0455).
volume "aws-gp2" {
	provider = "aws", region = "us-east-1", tiers = { "aws-gp2" },
	gib_month = { 0.10, "spec", "aws.amazon.com/ebs/pricing: gp2 $0.10 per GB-month (as copied 2019-07-21, gist.github.com/turtlemonvh/3465e7d295403c61181590e95e5a620d)", date = "2019-07-21" },
}
volume "aws-gp3" {
	provider = "aws", region = "us-east-1", tiers = { "aws-gp3", "aws-gp3-16k" },
	gib_month = { 0.08, "spec", "aws.amazon.com/ebs/pricing: gp3 $0.08 per GB-month (gitlab.com/gitlab-org/ci-cd/docker-machine/-/merge_requests/45)", date = "2020-12" },
	-- 3,000 IOPS and 125 MiB/s are included (lethang7794.github.io EBS volume types).
	iops_month = { 0.005, "assumed", "aws.amazon.com/ebs/pricing's $0.005 per provisioned IOPS-month above 3,000 (the page itself was not retrieved here); range a fifth either way", date = "2020-12", included = 3000, low = 0.004, high = 0.006 },
	mibps_month = { 0.04, "assumed", "aws.amazon.com/ebs/pricing's $0.040 per provisioned MiB/s-month above 125 (the page itself was not retrieved here); range a quarter either way", date = "2020-12", included = 125, low = 0.03, high = 0.05 },
}
volume "aws-io2" {
	provider = "aws", region = "us-east-1", tiers = { "aws-io2" },
	gib_month = { 0.125, "spec", "aws.amazon.com/ebs/pricing: io1/io2 $0.125 per GB-month (gist.github.com/turtlemonvh/3465e7d295403c61181590e95e5a620d; awsnegotiations.com/ebs-io2-block-express-cost.html, 2026)", date = "2026" },
	iops_month = { 0.065, "spec", "io2 per provisioned IOPS-month: $0.065 to 32,000, $0.046 to 64,000, $0.032 above (awsnegotiations.com/ebs-io2-block-express-cost.html)", date = "2026",
		       steps = { { 32000, 0.0455 }, { 64000, 0.032 } } },
}
volume "aws-st1" {
	provider = "aws", region = "us-east-1", tiers = { "aws-st1" },
	gib_month = { 0.045, "assumed", "aws.amazon.com/ebs/pricing's st1 $0.045 per GB-month (the page itself was not retrieved here); range a fifth either way", date = "2020", low = 0.036, high = 0.054 },
}
volume "aws-sc1" {
	provider = "aws", region = "us-east-1", tiers = { "aws-sc1" },
	gib_month = { 0.015, "assumed", "aws.amazon.com/ebs/pricing's sc1 $0.015 per GB-month (the page itself was not retrieved here; $0.025 before 2020); range: to the old price", date = "2020", low = 0.012, high = 0.025 },
}

-- ---------------------------------------------------------------------------
-- Azure, East US. No tier model yet (tier/tiers.lua has no Azure disk), so
-- these are listed only. Premium SSD is sold in fixed sizes: P30 (1 TiB,
-- 5,000 IOPS, 200 MB/s) $135.17/month (lucidity.cloud 'Standard SSD vs
-- Premium SSD', 2026), per GiB here. Premium SSD v2 and Ultra Disk charge
-- capacity, IOPS and throughput apart; their list was not retrieved.
volume "azure-premium-p30" {
	provider = "azure", region = "eastus",
	gib_month = { 135.17 / 1024, "spec", "Azure Premium SSD P30 (1 TiB) $135.17/month, per GiB (lucidity.cloud/feeds/blog/standard-ssd-vs-premium-ssd-azure-pricing, 2026)", date = "2026-05" },
}
volume "azure-premium-v2" {
	provider = "azure", region = "eastus",
	gib_month = { 0.081, "assumed", "azure.microsoft.com/pricing/details/managed-disks, Premium SSD v2 capacity, not retrieved here; range a quarter either way", date = "2026", low = 0.061, high = 0.101 },
	iops_month = { 0.005, "assumed", "the same page's IOPS above the free 3,000, not retrieved here; range a quarter either way", date = "2026", included = 3000, low = 0.00375, high = 0.00625 },
	mibps_month = { 0.04, "assumed", "the same page's MB/s above the free 125, not retrieved here; range a quarter either way", date = "2026", included = 125, low = 0.03, high = 0.05 },
}
volume "azure-ultra" {
	provider = "azure", region = "eastus",
	gib_month = { 0.12, "assumed", "azure.microsoft.com/pricing/details/managed-disks, Ultra Disk capacity (billed per GiB-hour), not retrieved here; range a third either way", date = "2026", low = 0.08, high = 0.16 },
	iops_month = { 0.036, "assumed", "the same page's Ultra Disk IOPS (per IOPS-hour), not retrieved here; range a third either way", date = "2026", low = 0.024, high = 0.048 },
	mibps_month = { 0.25, "assumed", "the same page's Ultra Disk throughput (per MB/s-hour), not retrieved here; range a third either way", date = "2026", low = 0.17, high = 0.33 },
}
