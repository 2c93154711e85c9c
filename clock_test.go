package informer_test

import "time"

func nowNano() int64 { return time.Now().UnixNano() }
