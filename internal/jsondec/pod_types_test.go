package jsondec

// The pod-shaped types of source/kube's benchmarks (benchPod…): the main
// fields of corev1.Pod with the same JSON names and field types where
// they matter for decoding (metav1.Time, resource.Quantity,
// intstr.IntOrString, pointers).

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// benchPod mirrors the main fields of corev1.Pod, with the same JSON
// names and the same field types where they matter for decoding
// (metav1.Time, resource.Quantity, intstr.IntOrString, pointers).
type benchPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              benchPodSpec   `json:"spec"`
	Status            benchPodStatus `json:"status"`
}

type benchPodSpec struct {
	Volumes                       []benchVolume     `json:"volumes,omitempty"`
	Containers                    []benchContainer  `json:"containers"`
	RestartPolicy                 string            `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty"`
	DNSPolicy                     string            `json:"dnsPolicy,omitempty"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty"`
	ServiceAccountName            string            `json:"serviceAccountName,omitempty"`
	NodeName                      string            `json:"nodeName,omitempty"`
	SecurityContext               *struct {
		RunAsNonRoot *bool  `json:"runAsNonRoot,omitempty"`
		FSGroup      *int64 `json:"fsGroup,omitempty"`
	} `json:"securityContext,omitempty"`
	SchedulerName string `json:"schedulerName,omitempty"`
	Tolerations   []struct {
		Key               string `json:"key,omitempty"`
		Operator          string `json:"operator,omitempty"`
		Effect            string `json:"effect,omitempty"`
		TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
	} `json:"tolerations,omitempty"`
	PriorityClassName  string  `json:"priorityClassName,omitempty"`
	Priority           *int32  `json:"priority,omitempty"`
	EnableServiceLinks *bool   `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy   *string `json:"preemptionPolicy,omitempty"`
}

type benchVolume struct {
	Name      string `json:"name"`
	ConfigMap *struct {
		Name        string `json:"name,omitempty"`
		DefaultMode *int32 `json:"defaultMode,omitempty"`
	} `json:"configMap,omitempty"`
	Projected *struct {
		Sources []struct {
			ServiceAccountToken *struct {
				ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
				Path              string `json:"path"`
			} `json:"serviceAccountToken,omitempty"`
			ConfigMap *struct {
				Name  string `json:"name,omitempty"`
				Items []struct {
					Key  string `json:"key"`
					Path string `json:"path"`
				} `json:"items,omitempty"`
			} `json:"configMap,omitempty"`
		} `json:"sources"`
		DefaultMode *int32 `json:"defaultMode,omitempty"`
	} `json:"projected,omitempty"`
	EmptyDir *struct {
		SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
	} `json:"emptyDir,omitempty"`
}

type benchContainer struct {
	Name    string   `json:"name"`
	Image   string   `json:"image,omitempty"`
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Ports   []struct {
		Name          string `json:"name,omitempty"`
		ContainerPort int32  `json:"containerPort"`
		Protocol      string `json:"protocol,omitempty"`
	} `json:"ports,omitempty"`
	Env []struct {
		Name      string `json:"name"`
		Value     string `json:"value,omitempty"`
		ValueFrom *struct {
			FieldRef *struct {
				APIVersion string `json:"apiVersion,omitempty"`
				FieldPath  string `json:"fieldPath"`
			} `json:"fieldRef,omitempty"`
			SecretKeyRef *struct {
				Name string `json:"name,omitempty"`
				Key  string `json:"key"`
			} `json:"secretKeyRef,omitempty"`
		} `json:"valueFrom,omitempty"`
	} `json:"env,omitempty"`
	Resources struct {
		Limits   map[string]resource.Quantity `json:"limits,omitempty"`
		Requests map[string]resource.Quantity `json:"requests,omitempty"`
	} `json:"resources,omitempty"`
	VolumeMounts []struct {
		Name      string `json:"name"`
		ReadOnly  bool   `json:"readOnly,omitempty"`
		MountPath string `json:"mountPath"`
	} `json:"volumeMounts,omitempty"`
	LivenessProbe            *benchProbe `json:"livenessProbe,omitempty"`
	ReadinessProbe           *benchProbe `json:"readinessProbe,omitempty"`
	TerminationMessagePath   string      `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string      `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          string      `json:"imagePullPolicy,omitempty"`
	SecurityContext          *struct {
		AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty"`
		ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem,omitempty"`
		Capabilities             *struct {
			Drop []string `json:"drop,omitempty"`
		} `json:"capabilities,omitempty"`
	} `json:"securityContext,omitempty"`
}

type benchProbe struct {
	HTTPGet *struct {
		Path   string             `json:"path,omitempty"`
		Port   intstr.IntOrString `json:"port"`
		Scheme string             `json:"scheme,omitempty"`
	} `json:"httpGet,omitempty"`
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	TimeoutSeconds      int32 `json:"timeoutSeconds,omitempty"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty"`
	SuccessThreshold    int32 `json:"successThreshold,omitempty"`
	FailureThreshold    int32 `json:"failureThreshold,omitempty"`
}

type benchPodStatus struct {
	Phase      string `json:"phase,omitempty"`
	Conditions []struct {
		Type               string      `json:"type"`
		Status             string      `json:"status"`
		LastProbeTime      metav1.Time `json:"lastProbeTime,omitempty"`
		LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	} `json:"conditions,omitempty"`
	HostIP string `json:"hostIP,omitempty"`
	PodIP  string `json:"podIP,omitempty"`
	PodIPs []struct {
		IP string `json:"ip,omitempty"`
	} `json:"podIPs,omitempty"`
	StartTime         *metav1.Time `json:"startTime,omitempty"`
	ContainerStatuses []struct {
		Name  string `json:"name"`
		State struct {
			Running *struct {
				StartedAt metav1.Time `json:"startedAt,omitempty"`
			} `json:"running,omitempty"`
		} `json:"state,omitempty"`
		Ready        bool   `json:"ready"`
		RestartCount int32  `json:"restartCount"`
		Image        string `json:"image"`
		ImageID      string `json:"imageID"`
		ContainerID  string `json:"containerID,omitempty"`
		Started      *bool  `json:"started,omitempty"`
	} `json:"containerStatuses,omitempty"`
	QOSClass string `json:"qosClass,omitempty"`
}
