//! convnet_distributed: ResNet-101 with 64 images per device, data parallel
//! over every visible device in one process (see
//! `mlb_torch::parallel::convnet`).

mlb_plugin::export_workload!(mlb_torch::TorchPlugin<mlb_torch::parallel::convnet::DistributedConvnet<false>>);
