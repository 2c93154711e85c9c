// Package informerbench holds the benchmarks of this library's informer
// machinery; bench/clientgo runs the same workloads, under the same names,
// on client-go's tools/cache. The code is in the _test.go files.
package informerbench
