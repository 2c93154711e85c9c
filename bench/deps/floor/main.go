// Command floor is the dependency-weight floor: what any Go program that
// talks to the API server with the upstream types pays, whichever client it
// uses. It lists the pods once with net/http (GET /api/v1/pods with a bearer
// token), decodes them into a corev1.PodList and prints them; no watch, no
// cache, no kubeconfig parsing.
//
//	KUBE_APISERVER_URL=https://... KUBE_TOKEN=... KUBE_CA_FILE=ca.crt go run ./deps/floor
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func main() {
	server, token, caFile := os.Getenv("KUBE_APISERVER_URL"), os.Getenv("KUBE_TOKEN"), os.Getenv("KUBE_CA_FILE")
	if server == "" || token == "" {
		log.Fatal("KUBE_APISERVER_URL and KUBE_TOKEN must be set (KUBE_CA_FILE: the server's CA)")
	}
	tlsConfig := &tls.Config{}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			log.Fatal(err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			log.Fatalf("%s: no certificate", caFile)
		}
		tlsConfig.RootCAs = pool
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	req, err := http.NewRequest(http.MethodGet, server+"/api/v1/pods", nil)
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var st metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&st)
		log.Fatalf("GET /api/v1/pods: %s: %s", resp.Status, st.Message)
	}
	var list corev1.PodList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		log.Fatal(err)
	}
	for _, p := range list.Items {
		fmt.Println("add", p.Namespace+"/"+p.Name)
	}
	fmt.Printf("listed: %d pods at resourceVersion %s\n", len(list.Items), list.ResourceVersion)
}
