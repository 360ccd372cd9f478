package imaging

// Every limit the package enforces lives here, each with the reason it has
// the value it has.
const (
	// MaxPixels is the largest width*height decoded: 50 MP is beyond any
	// phone or DSLR photo a user attaches, while a decoded 50 MP RGBA64 image
	// (400 MB) is still the worst a single call may cost.
	MaxPixels = 50_000_000

	// MaxLongEdge is the longest edge returned: vision models downscale
	// anything larger (1568 px is the documented sweet spot), so sending more
	// only costs bytes and tokens.
	MaxLongEdge = 1568

	// MaxOutputBytes is the largest encoded image returned: 3.75 MiB
	// base64-encodes to exactly 5 MiB, the per-image cap of MCP clients.
	MaxOutputBytes = 3_932_160

	// JPEGQuality is the first quality tried when re-encoding photos: visually
	// lossless for photos at a fraction of the bytes of higher settings.
	JPEGQuality = 85

	// MinJPEGQuality is the lowest quality the byte-cap ladder goes to before
	// it prefers scaling down: below it block artifacts hurt more than pixels.
	MinJPEGQuality = 55

	// JPEGQualityStep is how much quality each byte-cap retry gives up: four
	// steps from 85 to 55 cover the range in which size drops fastest.
	JPEGQualityStep = 10

	// MaxEncodeAttempts bounds the byte-cap loop (quality steps plus
	// downscales), so a pathological image costs a known amount of work.
	MaxEncodeAttempts = 10

	// ShrinkMargin is the extra factor applied when scaling down to meet the
	// byte cap, so one retry usually suffices (size is roughly linear in
	// pixels, and it is not exactly so).
	ShrinkMargin = 0.9

	// MinShrinkFactor is the smallest per-retry linear scale factor, so one
	// retry never throws away more than is needed to converge.
	MinShrinkFactor = 0.5

	// MaxJPEGSegments bounds the markers walked looking for the EXIF APP1
	// segment: real files have a handful before the image data.
	MaxJPEGSegments = 256

	// MaxIFDEntries bounds the entries read from one TIFF/EXIF IFD: the
	// spec's field is 16 bits, real IFD0s have tens of entries.
	MaxIFDEntries = 1024

	// MaxTIFFPages bounds the IFD chain walked to count TIFF pages (and the
	// loop a cyclic chain would otherwise be).
	MaxTIFFPages = 1024

	// MaxWebPChunks bounds the RIFF chunks walked in a WebP file: a still
	// image has at most VP8X, ICCP, ALPH, VP8/VP8L, EXIF and XMP.
	MaxWebPChunks = 64

	// MaxGIFFrames bounds the GIF frame counter's result and work: a count
	// beyond it adds nothing for a caller that only reports "animated".
	MaxGIFFrames = 100_000

	// MaxGIFBlocks bounds the GIF blocks (extensions and images) walked, so
	// a file of empty extensions cannot keep the counter busy.
	MaxGIFBlocks = 1_000_000

	// PrescaleMinFactor is the smallest integer factor at which the fast box
	// prescale runs before the quality pass: below 2x the quality pass alone
	// is both fast and alias-free.
	PrescaleMinFactor = 2
)
