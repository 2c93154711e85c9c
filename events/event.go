package events

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Types of events.
const (
	// Normal is the type of an event that tells what happened as planned.
	Normal = "Normal"
	// Warning is the type of an event that tells of a problem.
	Warning = "Warning"
)

// Event is an events.k8s.io/v1 Event, this package's own small type (no
// k8s.io/api needed); its JSON is the API's.
type Event struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// EventTime is when the event was first observed.
	EventTime metav1.MicroTime `json:"eventTime"`
	// Series, when set, says that the event happened Count times, last at
	// LastObservedTime.
	Series *EventSeries `json:"series,omitempty"`
	// ReportingController names the controller that reported the event,
	// like "example.com/mirror".
	ReportingController string `json:"reportingController,omitempty"`
	// ReportingInstance names the instance of the controller, like its
	// pod.
	ReportingInstance string `json:"reportingInstance,omitempty"`
	// Action is what the controller did or failed to do, like "Update".
	Action string `json:"action,omitempty"`
	// Reason is why, in one or more capitalised words run together, like
	// "Mirrored" or "Failed".
	Reason string `json:"reason,omitempty"`
	// Regarding is the object the event is about.
	Regarding ObjectReference `json:"regarding"`
	// Related is a second object involved, or nil.
	Related *ObjectReference `json:"related,omitempty"`
	// Note is a human-readable description, at most 1 KiB.
	Note string `json:"note,omitempty"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty"`
	// DeprecatedCount is the count of the core/v1 view of the event.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty"`
}

// EventSeries is the count of an event that happened more than once.
type EventSeries struct {
	// Count is how many times the event happened, 2 or more.
	Count int32 `json:"count"`
	// LastObservedTime is when it last happened.
	LastObservedTime metav1.MicroTime `json:"lastObservedTime"`
}

// ObjectReference names the object an event is about. Ref makes one from
// a typed descriptor and an object.
type ObjectReference struct {
	Kind            string    `json:"kind,omitempty"`
	Namespace       string    `json:"namespace,omitempty"`
	Name            string    `json:"name,omitempty"`
	UID             types.UID `json:"uid,omitempty"`
	APIVersion      string    `json:"apiVersion,omitempty"`
	ResourceVersion string    `json:"resourceVersion,omitempty"`
	FieldPath       string    `json:"fieldPath,omitempty"`
}

// String is "Kind namespace/name", for logs and errors.
func (r ObjectReference) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}
