package main

import (
	"strings"
	"testing"
)

const clientGoOut = `goos: linux
pkg: github.com/informer-go/informer/bench/clientgo
BenchmarkInitialSync/N=10000/H=1-2   20  3000000 ns/op  900 B/obj  10 allocs/obj  300 ns/obj  3333 objs/s
BenchmarkInitialSync/N=10000/H=1-2   20  3000000 ns/op  900 B/obj  10 allocs/obj  500 ns/obj  2000 objs/s
BenchmarkInitialSync/N=10000/H=1-2   20  3000000 ns/op  900 B/obj  10 allocs/obj  400 ns/obj  2500 objs/s
BenchmarkFIFO/RealFIFO-2   67  8174697 ns/op  600 B/addpop  13 allocs/addpop  800 ns/addpop
BenchmarkIndexer/Get-2   1000   40 ns/op   40 ns/object   0 B/op   0 allocs/op
PASS
`

const oursOut = `pkg: github.com/informer-go/informer/bench/informer
BenchmarkInitialSync/N=10000/H=1-2   20  1000000 ns/op  300 B/obj  2 allocs/obj  100 ns/obj  10000 objs/s
BenchmarkFIFO/DeltaFIFO-2   255  2247266 ns/op  120 B/addpop  1 allocs/addpop  200 ns/addpop
BenchmarkIndexer/Get-2   1000   30 ns/op   30 ns/object   0 B/op   0 allocs/op
BenchmarkBlockedHandler/bounded-2   1  600000000 ns/op  0.5 B/event  2000 pending
ok
`

func TestParseAndRatios(t *testing.T) {
	cg, err := parse(strings.NewReader(clientGoOut))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := parse(strings.NewReader(oursOut))
	if err != nil {
		t.Fatal(err)
	}
	if got := cg["InitialSync/N=10000/H=1"]["ns/obj"]; len(got) != 3 || median(got) != 400 {
		t.Fatalf("ns/obj samples %v, median %v; want 3 samples, median 400", got, median(got))
	}
	table := summaryTable(ratios(cg, ours))
	for _, want := range []string{
		"| InitialSync/N=10000/H=1 | ns/obj | 400 | 100 | 0.25× (4.0× less) |",
		"| InitialSync/N=10000/H=1 | allocs/obj | 10.0 | 2.00 | 0.20× (5.0× less) |",
		"| Indexer/Get | allocs/op | 0 | 0 | = (both 0) |",
		"| FIFO: ours DeltaFIFO vs client-go RealFIFO | ns/addpop | 800 | 200 | 0.25× (4.0× less) |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("summary lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "objs/s") || strings.Contains(table, "pending") {
		t.Errorf("summary compares throughputs or counts:\n%s", table)
	}
	// Rows without a counterpart are left out.
	if strings.Contains(table, "BlockedHandler") {
		t.Errorf("summary has a BlockedHandler row without client-go's:\n%s", table)
	}
}

func TestOrder(t *testing.T) {
	s := samples{
		"Indexer/List": nil, "Indexer/Add": nil, "FIFO/DeltaFIFO": nil,
		"InitialSync/N=100000/H=1": nil, "InitialSync/N=10000/H=10": nil, "InitialSync/N=10000/H=1": nil,
		"SteadyState/H=1": nil,
	}
	got := strings.Join(order(s), " ")
	want := "InitialSync/N=10000/H=1 InitialSync/N=10000/H=10 InitialSync/N=100000/H=1 SteadyState/H=1 Indexer/Add Indexer/List FIFO/DeltaFIFO"
	if got != want {
		t.Errorf("order:\n got %s\nwant %s", got, want)
	}
}
