//go:build race

package workqueue_test

const raceEnabled = true
