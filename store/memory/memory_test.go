package memory_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) chatcore.Store { return memory.New() })
}
