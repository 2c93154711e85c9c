// Package testpod holds a pod-shaped type set and a realistic pod as JSON,
// shared by the tests and benchmarks of the root module, which may not
// import k8s.io/api: the main fields of corev1.Pod with the same JSON
// names and the same field types where they matter for decoding
// (metav1.Time, resource.Quantity, intstr.IntOrString, pointers).
package testpod

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pod mirrors the main fields of corev1.Pod, with the same JSON
// names and the same field types where they matter for decoding
// (metav1.Time, resource.Quantity, intstr.IntOrString, pointers).
type Pod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              PodSpec   `json:"spec"`
	Status            PodStatus `json:"status"`
}

// PodSpec mirrors corev1.PodSpec.
type PodSpec struct {
	Volumes                       []Volume          `json:"volumes,omitempty"`
	Containers                    []Container       `json:"containers"`
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

// Volume mirrors corev1.Volume.
type Volume struct {
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

// Container mirrors corev1.Container.
type Container struct {
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
	LivenessProbe            *Probe `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe `json:"readinessProbe,omitempty"`
	TerminationMessagePath   string `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          string `json:"imagePullPolicy,omitempty"`
	SecurityContext          *struct {
		AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty"`
		ReadOnlyRootFilesystem   *bool `json:"readOnlyRootFilesystem,omitempty"`
		Capabilities             *struct {
			Drop []string `json:"drop,omitempty"`
		} `json:"capabilities,omitempty"`
	} `json:"securityContext,omitempty"`
}

// Probe mirrors corev1.Probe.
type Probe struct {
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

// PodStatus mirrors corev1.PodStatus.
type PodStatus struct {
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

// JSON is a realistic Pod as JSON, about 5 KiB (5.2 KiB), in the shape
// kube-apiserver serves a Deployment's pod (managed fields included),
// with NAME, UID and RV standing for the per-pod values.
const JSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"NAME","generateName":"web-7c5ddbdf54-","namespace":"shop","uid":"UID","resourceVersion":"RV","creationTimestamp":"2026-11-02T10:04:31Z","labels":{"app.kubernetes.io/name":"web","app.kubernetes.io/part-of":"shop","pod-template-hash":"7c5ddbdf54","tier":"frontend"},"annotations":{"prometheus.io/port":"9090","prometheus.io/scrape":"true"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7c5ddbdf54","uid":"5d1f2b7e-3c1a-4e55-9a8e-2f5b8c6d7e90","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-11-02T10:04:31Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5d1f2b7e-3c1a-4e55-9a8e-2f5b8c6d7e90\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{}}}}}}]},"spec":{"volumes":[{"name":"config","configMap":{"name":"web-config","defaultMode":420}},{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"kube-api-access-x7k2p","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}],"defaultMode":420}}],"containers":[{"name":"web","image":"registry.example.com/shop/web:v2.14.3","args":["--port=8080","--metrics-port=9090","--log-level=info"],"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}],"env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},{"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}},{"name":"DATABASE_PASSWORD","valueFrom":{"secretKeyRef":{"name":"web-db","key":"password"}}},{"name":"CACHE_DIR","value":"/var/cache/web"}],"resources":{"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"250m","memory":"512Mi"}},"volumeMounts":[{"name":"config","readOnly":true,"mountPath":"/etc/web"},{"name":"cache","mountPath":"/var/cache/web"},{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"httpGet":{"path":"/healthz","port":"http","scheme":"HTTP"},"initialDelaySeconds":10,"timeoutSeconds":2,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent","securityContext":{"allowPrivilegeEscalation":false,"readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}}},{"name":"proxy","image":"registry.example.com/infra/envoy:v1.31.2","command":["/usr/local/bin/envoy"],"args":["-c","/etc/envoy/envoy.yaml"],"ports":[{"name":"proxy","containerPort":15001,"protocol":"TCP"}],"env":[{"name":"ENVOY_UID","value":"1337"}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"volumeMounts":[{"name":"kube-api-access-x7k2p","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"httpGet":{"path":"/server_info","port":15000,"scheme":"HTTP"},"initialDelaySeconds":5,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"readinessProbe":{"httpGet":{"path":"/ready","port":15021,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":2,"successThreshold":1,"failureThreshold":30}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeSelector":{"kubernetes.io/os":"linux"},"serviceAccountName":"web","nodeName":"node-17.example.internal","securityContext":{"runAsNonRoot":true,"fsGroup":2000},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":100000,"enableServiceLinks":true},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:31Z"},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:40Z"},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:40Z"},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-02T10:04:31Z"}],"hostIP":"10.20.3.17","podIP":"10.244.17.45","podIPs":[{"ip":"10.244.17.45"}],"startTime":"2026-11-02T10:04:31Z","containerStatuses":[{"name":"proxy","state":{"running":{"startedAt":"2026-11-02T10:04:36Z"}},"ready":true,"restartCount":0,"image":"registry.example.com/infra/envoy:v1.31.2","imageID":"registry.example.com/infra/envoy@sha256:3f1c2b8d9e0a7f6e5d4c3b2a19081726354453627180918a7b6c5d4e3f2a1b0c","started":true},{"name":"web","state":{"running":{"startedAt":"2026-11-02T10:04:35Z"}},"ready":true,"restartCount":0,"image":"registry.example.com/shop/web:v2.14.3","imageID":"registry.example.com/shop/web@sha256:9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d","started":true}],"qosClass":"Burstable"}}`
