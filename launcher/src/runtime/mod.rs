//! How instances are run: the instance description shared by every runtime,
//! image selection, and the container runtimes (Docker, Singularity/Apptainer).

pub mod build_cmd;
pub mod docker;
pub mod images;
pub mod singularity;
pub mod spec;
