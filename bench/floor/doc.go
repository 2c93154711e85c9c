// Package floorbench is the floor of the in-memory benchmarks: the least a
// correct cache can do for the same workloads, under the same benchmark
// names as bench/informer and bench/clientgo. A plain map[string]T under
// one mutex holds the objects by namespace/name, and each event's handler
// calls are made directly by the goroutine that reads the events, in
// order, after the map holds the new state (so per-key order and "cache
// before handler" hold, as in an informer). It has nothing else: no
// queue between reading and applying (a slow handler holds back the
// reader and every other handler, except in FanOut, where each handler
// gets a goroutine and an unbounded queue, the least that keeps the fast
// ones going), no index, no relist, no resync, no health, no
// resourceVersion tracking, no recovery of a panicking handler. The code
// is in the _test.go files.
package floorbench
