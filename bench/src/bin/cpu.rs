//! Prints the CPU line every benchmark table is read against (`make bench` prints it first,
//! for the Python and SQL benchmarks too).
fn main() {
    println!("{}", dof_bench::cpu_line());
}
