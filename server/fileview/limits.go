package fileview

// Every bound this package applies lives here, one named constant each, with
// the reason for its number. Nothing in the package reads more, keeps more or
// loops longer than these allow, whatever the input claims about itself.

const (
	// DefaultWindowLines: 500 lines of ordinary text (about 60 bytes each) fill
	// roughly one MaxWindowBytes window, so the default rarely wastes a call.
	DefaultWindowLines = 500

	// MaxWindowLines: a caller may ask for up to 2000 short lines (ids, CSV,
	// logs); the byte cap below still bounds what one window returns.
	MaxWindowLines = 2000

	// MaxWindowBytes: 32 KiB of numbered text is about 8k tokens, under the size
	// at which MCP clients start warning about large tool results.
	MaxWindowBytes = 32 << 10

	// MaxInputBytes: the whole file is held in memory and scanned for line
	// counts; above 64 MiB a file is described instead of read, whatever the
	// admin's upload limit is.
	MaxInputBytes = 64 << 20

	// MaxMediaBytes: base64 grows bytes by 4/3, so 3.75 MiB becomes 5 MiB
	// (5,242,880 bytes), the largest image or attachment the model APIs accept
	// in one piece; the same cap as imaging.MaxOutputBytes.
	MaxMediaBytes = 3_932_160

	// MaxPackageBytes: total decompressed bytes read from one Office package;
	// encoding/xml reads 20-40 MB a second, so a hostile package costs a few
	// seconds of CPU at most, while real text, strings and sheets fit.
	MaxPackageBytes = 128 << 20

	// MaxPartBytes: decompressed bytes read from one large part (document.xml,
	// a worksheet, sharedStrings.xml); a 5 MB .docx of plain text inflates to
	// about 15 MB of XML, and a 100,000-row sheet to about 30 MB, so 32 MiB
	// reads real files whole and stops a bomb after about a second.
	MaxPartBytes = 32 << 20

	// MaxSmallPartBytes: decompressed bytes read from a part that only lists
	// things (relationships, workbook.xml, presentation.xml, styles.xml); real
	// ones are kilobytes, bloated styles files reach a few MB.
	MaxSmallPartBytes = 8 << 20

	// MaxPackageEntries: zip directory entries an Office package may have before
	// it is listed as an archive instead of opened; real packages have tens to a
	// few thousand parts, and archive/zip keeps every entry in memory.
	MaxPackageEntries = 20_000

	// MaxXMLDepth: real Office XML nests about 20 levels (tables in text boxes in
	// tables reach 60); deeper input is refused, so no nesting bomb costs memory.
	MaxXMLDepth = 256

	// MaxExtractedTextBytes: text kept from one Office file; 16 MiB is 512 full
	// windows, more than anyone pages through, and bounds memory to a few times
	// that.
	MaxExtractedTextBytes = 16 << 20

	// MaxSharedStrings: distinct strings kept from an Excel workbook; 500,000 is
	// beyond any workbook a person reads, and stops a millions-of-strings file
	// after a few MB of parsing.
	MaxSharedStrings = 500_000

	// MaxSharedStringBytes: bytes of shared-string text kept; the same order as
	// the extracted-text cap, since no more of them could be shown anyway.
	MaxSharedStringBytes = 16 << 20

	// MaxCellBytes: Excel itself holds at most 32,767 characters in a cell.
	MaxCellBytes = 32 << 10

	// MaxSheets: sheets read from one workbook; workbooks with hundreds of sheets
	// exist, thousands are generated noise.
	MaxSheets = 500

	// MaxSlides: slides read from one presentation; a long deck has a few
	// hundred.
	MaxSlides = 2000

	// MaxSheetRow: Excel's own last row; a larger row number is not a real
	// workbook and is not laid out.
	MaxSheetRow = 1_048_576

	// MaxSheetColumn: Excel's own last column (XFD); cells beyond it are dropped,
	// so one row can never be padded with more tabs than this.
	MaxSheetColumn = 16_384

	// MaxStyles: cell formats read from styles.xml; Excel allows about 64,000.
	MaxStyles = 100_000

	// MaxRelationships: relationships read from one .rels part; a deck with
	// MaxSlides slides and their media stays well under it.
	MaxRelationships = 20_000

	// MaxFieldNesting: Word fields nested inside fields; real documents nest a
	// handful, deeper nesting is only counted.
	MaxFieldNesting = 64

	// MaxArchiveEntries: entries listed from one archive; 10,000 lines is 20 or
	// more windows, past what a model pages through.
	MaxArchiveEntries = 10_000

	// MaxArchiveEntriesCounted: entries counted (not listed) after the listing
	// stops, so the header can say how many more there are.
	MaxArchiveEntriesCounted = 1_000_000

	// MaxArchiveListingBytes: bytes of listing text kept; 10,000 entries of
	// ordinary path length take about 1 MiB.
	MaxArchiveListingBytes = 2 << 20

	// MaxArchiveNameBytes: longest entry path shown; PATH_MAX on Linux is 4096.
	MaxArchiveNameBytes = 4096

	// MaxLinkTargetBytes: longest symbolic-link target read from a zip entry;
	// PATH_MAX again.
	MaxLinkTargetBytes = 4096

	// MaxArchiveReadBytes: decompressed bytes read through a .tar.gz or .tar.bz2
	// to reach entry headers (tar keeps data between headers); gzip inflates a
	// few hundred MB a second, so the listing of a bomb stops in under a second.
	MaxArchiveReadBytes = 256 << 20

	// MaxSniffDecompressBytes: decompressed bytes looked at to tell a .tar.gz
	// from another .gz; one tar header block is 512 bytes.
	MaxSniffDecompressBytes = 512

	// MaxSniffZipEntries: zip directory entries inspected to tell a Word, Excel
	// or PowerPoint package from a plain zip; their marker parts come first.
	MaxSniffZipEntries = MaxPackageEntries

	// ctxCheckEvery: loop iterations between context checks; cheap enough to
	// notice a cancellation within a millisecond or so.
	ctxCheckEvery = 1024
)
