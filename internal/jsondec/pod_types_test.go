package jsondec

import "github.com/informer-go/informer/internal/testpod"

// The pod-shaped types of source/kube's benchmarks, shared through
// internal/testpod.
type (
	benchPod       = testpod.Pod
	benchPodSpec   = testpod.PodSpec
	benchVolume    = testpod.Volume
	benchContainer = testpod.Container
	benchProbe     = testpod.Probe
	benchPodStatus = testpod.PodStatus
)
