package proto

import "time"

// Sizes and counts (protocol-facts.md §2.3, §5).
const (
	MaxFrameBytes                 = 4 << 20  // WebSocket read limit on both sides
	BootstrapResponseMaxBytes     = 64 << 10 // the Runtime caps the bootstrap body it reads
	RuntimePrepareMaxFrameBytes   = 1 << 20  // a whole runtime_prepare frame
	TransferChunkBytes            = 64 << 10 // runtime_prepare, workspace_write and export chunks
	TransferMaxBytes              = 50 << 20 // runtime_prepare and workspace_write body
	WorkspaceWriteMaxFrameBytes   = 96 << 10 // a workspace_write payload
	WorkspaceExportMaxFrameBytes  = 96 << 10 // a workspace_export(_result) payload
	WorkspaceExportMaxBytes       = 528 << 20
	WorkspaceReadMaxRequestBytes  = 8 << 10 // a workspace_read / export request payload
	CorrelationIDMaxBytes         = 128     // read, export and suspension IDs (oversized IDs are not echoed)
	WorkspaceReadMaxBytes         = 1 << 20 // a byte read result
	DirectoryMaxEntries           = 1024
	DirectoryNameMaxBytes         = 255
	MaxPathBytes                  = 4096
	TraceEchoMaxChars             = 256 // a longer trace is dropped from a read reply
	PublicInlineFileMaxBytes      = 5 << 20
	PluginSlots                   = 50 // slots 0–49
	MaxCapabilitySources          = 50 // skills, plugins, directories each
	MaxInitializationEntries      = 1000
	MaxSteeringInputs             = 256 // distinct inputs per Run
	InputIDMaxBytes               = 256
	AdmissionRecords              = 64 // admission records a Runtime retains
	PreparationCapacity           = 4  // concurrent active preparations/Executors
	IdleExecutorCapacity          = 16
	ExecutorCapacity              = IdleExecutorCapacity + PreparationCapacity
	ConcurrentReads               = 4
	AppliedDecisionMemory         = 1024
	CoreSendQueue                 = 64
	RuntimeChannelFrames          = 64
	RunSubscriptionBuffer         = 256
	PreparationSubscriptions      = 64
	PreparationSubscriptionFrames = 16
	OutstandingSuspensions        = 2
)

// Timers (protocol-facts.md §5). Every implementation reads them through an injected clock.
const (
	DefaultHeartbeatInterval        = 15 * time.Second
	LivenessTimeout                 = 60 * time.Second
	HandshakeTimeout                = 10 * time.Second
	WriteTimeout                    = 10 * time.Second
	AdmissionExpiry                 = 5 * time.Minute
	IdleExecutorExpiry              = time.Hour
	StatusSendBudget                = 5 * time.Second
	ReceiptSendBudget               = 5 * time.Second
	TurnSettlementWait              = 10 * time.Second
	NativeWriteTimeout              = 10 * time.Second
	InFlightInputWait               = 15 * time.Second
	WrittenWait                     = 30 * time.Second // Core's wait for `written` from delivery
	CancellationConfirmationTimeout = 15 * time.Second
	InteractionAckTimeout           = 15 * time.Second
	CoreSendTimeout                 = 3 * time.Second
	AppliedDecisionMaxAge           = time.Hour
	ReadNativeBudget                = 12 * time.Second
	TransferBodyDeadline            = 120 * time.Second // the Runtime's bound on a transfer body
	TransferExchangeDeadline        = 195 * time.Second // Core's bound on a whole transfer
	ExportDeadline                  = 180 * time.Second
	ExportCancelBudget              = 2 * time.Second
	QuiesceDrain                    = 5 * time.Second
)
