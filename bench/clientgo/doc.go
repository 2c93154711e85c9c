// Package clientgobench holds the benchmarks of client-go's tools/cache on
// the same workloads, under the same names, as bench/informer. The code is
// in the _test.go files.
package clientgobench
