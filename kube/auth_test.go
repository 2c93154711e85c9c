package kube

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-go/informer/internal/kubefixture"
)

func TestAuthHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer srv.Close()
	tokenFile := writeFile(t, t.TempDir(), "token", []byte("  file-token\n"))
	tests := []struct {
		name      string
		cfg       Config
		header    string // the request's own Authorization header
		wantAuth  string
		wantAgent string
	}{
		{name: "bearer token", cfg: Config{BearerToken: "s3cret"}, wantAuth: "Bearer s3cret"},
		{name: "token file, trimmed", cfg: Config{BearerTokenFile: tokenFile}, wantAuth: "Bearer file-token"},
		{name: "token file wins over token", cfg: Config{BearerToken: "s3cret", BearerTokenFile: tokenFile}, wantAuth: "Bearer file-token"},
		{name: "basic auth", cfg: Config{Username: "alice", Password: "pa:ss"}, wantAuth: "Basic YWxpY2U6cGE6c3M="},
		{name: "no credentials", cfg: Config{}, wantAuth: ""},
		{name: "the request's own header wins", cfg: Config{BearerToken: "s3cret"}, header: "Bearer mine", wantAuth: "Bearer mine"},
		{name: "custom user agent", cfg: Config{UserAgent: "my-controller/1.0"}, wantAgent: "my-controller/1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Host = srv.URL
			client, err := tt.cfg.HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest("GET", srv.URL, nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var s seen
			if err := kubefixture.DecodeJSON(resp, &s); err != nil {
				t.Fatal(err)
			}
			if s.Authorization != tt.wantAuth {
				t.Errorf("Authorization %q, want %q", s.Authorization, tt.wantAuth)
			}
			if tt.wantAgent == "" {
				tt.wantAgent = defaultUserAgent()
			}
			if s.UserAgent != tt.wantAgent || !strings.HasSuffix(defaultUserAgent(), "informer-go") {
				t.Errorf("User-Agent %q, want %q", s.UserAgent, tt.wantAgent)
			}
			if req.Header.Get("Authorization") != tt.header {
				t.Errorf("the caller's request was changed")
			}
		})
	}
}

// TestTokenFileRotation rewrites the token file between requests: the next
// request carries the new token.
func TestTokenFileRotation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(echoHandler))
	defer srv.Close()
	dir := t.TempDir()
	path := writeFile(t, dir, "token", []byte("token-one"))
	client, err := (&Config{Host: srv.URL, BearerTokenFile: path}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{"token-one", "token-two-2", "token-three-33"} {
		writeFile(t, dir, "token", []byte(token+"\n"))
		s, _, err := getWith(t, client, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if s.Authorization != "Bearer "+token {
			t.Errorf("sent %q, want the token %q", s.Authorization, token)
		}
	}
	// A rotation by atomic rename, as the kubelet does it.
	tmp := writeFile(t, dir, "token.tmp", []byte("renamed-token"))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := getWith(t, client, srv.URL); s.Authorization != "Bearer renamed-token" {
		t.Errorf("after rename sent %q", s.Authorization)
	}
	// A token file that disappears keeps the last good token.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := getWith(t, client, srv.URL); s.Authorization != "Bearer renamed-token" {
		t.Errorf("after removal sent %q", s.Authorization)
	}
}

// TestTokenFileRereadAfter401 changes the token file without changing its
// size or modification time: the change is seen after the server answers
// 401.
func TestTokenFileRereadAfter401(t *testing.T) {
	var accept atomic.Value
	accept.Store("Bearer new-tok")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != accept.Load().(string) {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		echoHandler(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := writeFile(t, dir, "token", []byte("old-tok"))
	client, err := (&Config{Host: srv.URL, BearerTokenFile: path}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	writeFile(t, dir, "token", []byte("new-tok"))
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, code, _ := getWith(t, client, srv.URL); code != http.StatusUnauthorized {
		t.Fatalf("first request: %d, want 401 (the stale token)", code)
	}
	if _, code, _ := getWith(t, client, srv.URL); code != http.StatusOK {
		t.Fatalf("after the 401: %d, want 200 with the re-read token", code)
	}
}

// TestReloadingFilesPeriod checks, on a fake clock, that a file whose size
// and modification time did not change is read again after a minute.
func TestReloadingFilesPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		path := writeFile(t, dir, "token", []byte("aaaa"))
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		reads := 0
		parse := func(data [][]byte) (string, error) { reads++; return parseTokenFile(data) }
		r := newReloadingFiles(parse, nil, path)
		expect := func(want string, wantReads int) {
			t.Helper()
			got, err := r.get()
			if err != nil || got != want || reads != wantReads {
				t.Fatalf("got %q, %v after %d reads; want %q after %d", got, err, reads, want, wantReads)
			}
		}
		expect("aaaa", 1)
		expect("aaaa", 1) // unchanged: not read again
		writeFile(t, dir, "token", []byte("bbbb"))
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(59 * time.Second)
		expect("aaaa", 1) // the change is invisible to stat
		time.Sleep(time.Second)
		expect("bbbb", 2) // a minute since the read
		expect("bbbb", 2)
		r.invalidate()
		expect("bbbb", 3)
		writeFile(t, dir, "token", []byte("cc"))
		expect("cc", 4) // the size changed
		writeFile(t, dir, "token", []byte(" \n"))
		expect("cc", 5) // an empty token keeps the last good one
		time.Sleep(time.Minute)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		expect("cc", 5)
	})
}

func TestReloadingFilesFirstReadFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	r := newReloadingFiles(parseTokenFile, nil, path)
	if _, err := r.get(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("got %v", err)
	}
	writeFile(t, filepath.Dir(path), "token", []byte("late"))
	if got, err := r.get(); err != nil || got != "late" {
		t.Fatalf("got %q, %v", got, err)
	}
}
