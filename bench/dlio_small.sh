# dlio_small.sh — the scaled-down DLIO datasets that bench/dlio_twin.sh and
# bench/dlio_mpi.sh run (sourced by both): unet3d 160 npz files of
# 2 MB +- 0.5 MB, batch 2; resnet50 24 TFRecord files of 200 records of
# resnet50_h100's 114,660 B, batch 40, 4 read threads, transfer 1 MiB;
# computation 0.02 s, 2 epochs. No page cache modeled (MLPerf sizes the
# dataset to 5x host memory so that reads miss).
# shellcheck disable=SC2034 # used by the scripts that source it
declare -A over=(
	[unet3d_h100]="++workload.dataset.num_files_train=160 ++workload.dataset.record_length_bytes=2000000 ++workload.dataset.record_length_bytes_stdev=500000 ++workload.reader.batch_size=2 ++workload.train.computation_time=0.02 ++workload.train.epochs=2"
	[resnet50_h100]="++workload.dataset.num_files_train=24 ++workload.dataset.num_samples_per_file=200 ++workload.reader.batch_size=40 ++workload.reader.read_threads=4 ++workload.reader.transfer_size=1048576 ++workload.train.computation_time=0.02 ++workload.train.epochs=2"
)
