package shard_test

import (
	"context"
	"fmt"

	"github.com/informer-go/informer"
	"github.com/informer-go/informer/shard"
	"github.com/informer-go/informer/source/memory"
)

// Two replicas share a collection: each lists through a Filter of its
// half of the hash space, and together they see every object once.
func Example() {
	src := memory.New[*obj](memory.Options{})
	for i := range 10 {
		_ = src.Create(newObj(i))
	}
	total := 0
	for i := range 2 {
		half := shard.NewSet(shard.Split(2, i))
		f := shard.NewFilter(src, half, shard.FilterOptions[*obj]{Hash: shard.ByUID[*obj]})
		page, _ := f.List(context.Background(), informer.ListOptions{})
		total += len(page.Items)
	}
	fmt.Println("objects seen once in all:", total)
	fmt.Println(shard.NewSet(shard.Split(2, 1)).Selector(shard.FieldUID))
	// Output:
	// objects seen once in all: 10
	// shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
}
