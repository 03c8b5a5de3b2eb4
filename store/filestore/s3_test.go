package filestore_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/store/storetest"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestS3Conformance runs the conformance cases against the S3 storage
// talking to an in-process S3 protocol server (gofakes3), a bucket per case.
func TestS3Conformance(t *testing.T) {
	storetest.RunFileStorage(t, func(t *testing.T) store.FileStorage {
		backend := s3mem.New()
		srv := httptest.NewServer(gofakes3.New(backend).Server())
		t.Cleanup(srv.Close)
		if err := backend.CreateBucket("uploads"); err != nil {
			t.Fatal(err)
		}
		s, err := filestore.OpenS3(t.Context(), filestore.S3Config{
			Endpoint: strings.TrimPrefix(srv.URL, "http://"), Insecure: true, Region: "us-east-1",
			AccessKey: "test", SecretKey: "test-secret", Bucket: "uploads", Prefix: "chat/", PathStyle: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestS3MissingBucket checks that a bucket that does not exist is an error
// at open.
func TestS3MissingBucket(t *testing.T) {
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer srv.Close()
	_, err := filestore.OpenS3(t.Context(), filestore.S3Config{
		Endpoint: strings.TrimPrefix(srv.URL, "http://"), Insecure: true, Region: "us-east-1",
		AccessKey: "test", SecretKey: "test-secret", Bucket: "nope", PathStyle: true,
	})
	if err == nil {
		t.Fatal("opened a bucket that does not exist")
	}
}
