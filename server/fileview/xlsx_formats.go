package fileview

import (
	"context"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Number formats and dates of Excel cells: which styles say a number is a
// date or a time, and how a serial number reads as one.

// fmtClass says how a number format shows a number: as a date, a time, both,
// or (all false) as a number.
type fmtClass struct {
	date, time, seconds, elapsed bool
}

func (c fmtClass) isDate() bool { return c.date || c.time }

// builtinFormats are Excel's built-in date and time formats.
var builtinFormats = map[int]fmtClass{
	14: {date: true}, 15: {date: true}, 16: {date: true}, 17: {date: true},
	18: {time: true}, 19: {time: true, seconds: true}, 20: {time: true}, 21: {time: true, seconds: true},
	22: {date: true, time: true},
	45: {time: true, seconds: true}, 46: {time: true, seconds: true, elapsed: true}, 47: {time: true, seconds: true},
}

// styles maps cell style indexes to how their numbers are shown.
type styles struct {
	xfFmt  []int
	custom map[int]fmtClass
}

func (s *styles) class(style int) fmtClass {
	if style < 0 || style >= len(s.xfFmt) {
		return fmtClass{}
	}
	id := s.xfFmt[style]
	if c, ok := builtinFormats[id]; ok {
		return c
	}
	return s.custom[id]
}

func (s *styles) read(ctx context.Context, p *pkg, part string) error {
	xfsLevel := 0
	return p.eachToken(ctx, part, MaxSmallPartBytes, func(w *xmlWalker, t xml.Token) error {
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				if id, err := strconv.Atoi(attr(t, "numFmtId")); err == nil && len(s.custom) < MaxStyles {
					s.custom[id] = classifyFormat(attr(t, "formatCode"))
				}
			case "cellXfs":
				xfsLevel = w.depth
			case "xf":
				if xfsLevel > 0 && w.depth == xfsLevel+1 && len(s.xfFmt) < MaxStyles {
					id, _ := strconv.Atoi(attr(t, "numFmtId"))
					s.xfFmt = append(s.xfFmt, id)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				xfsLevel = 0
			}
		}
		return nil
	})
}

// classifyFormat finds the date and time tokens (y, m, d, h, s) of a custom
// number format, outside quoted text, [brackets] (except [h], [mm], [ss]
// elapsed times), escaped characters and AM/PM markers. An "m" is minutes
// when it follows an hour or precedes a second, otherwise months.
func classifyFormat(code string) fmtClass {
	var groups []byte
	add := func(c byte) {
		if len(groups) == 0 || groups[len(groups)-1] != c {
			groups = append(groups, c)
		}
	}
	var c fmtClass
	for i := 0; i < len(code) && i < 1024; i++ {
		ch := code[i]
		switch ch {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
			continue
		case '[':
			j := strings.IndexByte(code[i+1:], ']')
			if j < 0 {
				i = len(code)
				continue
			}
			inner := strings.ToLower(code[i+1 : i+1+j])
			if inner != "" && strings.Trim(inner, "hms") == "" {
				c.elapsed = true
				add(inner[0])
			}
			i += j + 1
			continue
		case '\\', '_', '*':
			i++
			continue
		}
		if strings.HasPrefix(strings.ToUpper(code[i:]), "AM/PM") {
			i += 4
			continue
		}
		if strings.HasPrefix(strings.ToUpper(code[i:]), "A/P") {
			i += 2
			continue
		}
		switch ch | 0x20 {
		case 'y', 'm', 'd', 'h', 's':
			add(ch | 0x20)
		case 'e':
			// "e" is a year in some locales but the exponent in 0.00E+00;
			// only the latter is common.
		}
	}
	for i, g := range groups {
		switch g {
		case 'y', 'd':
			c.date = true
		case 'h':
			c.time = true
		case 's':
			c.time, c.seconds = true, true
		case 'm':
			minutes := (i > 0 && groups[i-1] == 'h') || (i+1 < len(groups) && groups[i+1] == 's')
			if minutes {
				c.time = true
			} else {
				c.date = true
			}
		}
	}
	return c
}

var (
	epoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	epoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

// excelDate writes a serial date number the way its format means it, in
// ISO order. In the 1900 system serial 60 is 1900-02-29, a day that never
// was (Lotus 1-2-3's leap-year bug, kept by Excel).
func excelDate(v float64, date1904 bool, c fmtClass) (string, bool) {
	if math.IsNaN(v) || v < 0 || v >= 2958466 {
		return "", false
	}
	days := math.Floor(v)
	secs := math.Round((v - days) * 86400)
	if secs >= 86400 {
		days++
		secs -= 86400
	}
	var date string
	switch {
	case date1904:
		date = epoch1904.AddDate(0, 0, int(days)).Format("2006-01-02")
	case days == 60:
		date = "1900-02-29"
	case days < 60:
		date = epoch1900.AddDate(0, 0, int(days)+1).Format("2006-01-02")
	default:
		date = epoch1900.AddDate(0, 0, int(days)).Format("2006-01-02")
	}
	s := int(secs)
	h, m, sec := s/3600, s%3600/60, s%60
	if c.elapsed {
		h += int(days) * 24
	}
	clock := fmt.Sprintf("%02d:%02d", h, m)
	if c.seconds {
		clock += fmt.Sprintf(":%02d", sec)
	}
	switch {
	case c.date && c.time:
		return date + " " + clock, true
	case c.time:
		return clock, true
	}
	return date, true
}
