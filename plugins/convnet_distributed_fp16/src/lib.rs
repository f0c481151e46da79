//! convnet_distributed_fp16: ResNet-101 in half precision (loss scale 128,
//! fp32 master weights) with 128 images per device, data parallel over every
//! visible device in one process (see `mlb_torch::parallel::convnet`).

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::parallel::convnet::DistributedConvnet<true>>);
