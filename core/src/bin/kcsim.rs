//! The `kcsim` command-line tool.

fn main() {
    std::process::exit(kcsim_core::cli::main(std::env::args().skip(1).collect()));
}
