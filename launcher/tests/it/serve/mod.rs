mod pages;
mod pages_store;
