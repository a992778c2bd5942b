package domain

import (
	"slices"
	"strings"
)

// currencies are the ISO 4217 codes money may be kept in: the active codes of the
// standard's list one for national and regional currencies, the fund codes some debts
// are indexed in (Mexico's UDI is MXV, Chile's UF is CLF) and the precious metals (XAU,
// XAG, XPD, XPT). Left out are the codes that name no money one holds: testing (XTS), no
// currency (XXX), and the units of account of institutions (XBA, XBB, XBC, XBD, XDR,
// XSU, XUA, XAD). So are the codes withdrawn from the standard (ANG, CUC, HRK, MRO,
// SLL, STD, VEF, ZWL, ...); BGN stays while the ECB's feed and the books of 2025 carry it.
//
// golang.org/x/text/currency is not the source: its table comes from an old CLDR and
// still lists withdrawn codes (HRK, MRO, VEF) while it lacks current ones (MRU, VES,
// VED, SLE, ZWG, XCG).
var currencies = strings.Fields(`
	AED AFN ALL AMD AOA ARS AUD AWG AZN
	BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
	CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK
	DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD
	HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY
	KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD
	MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN
	NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR
	RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
	THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS
	VED VES VND VUV WST XAF XAG XAU XCD XCG XOF XPD XPF XPT YER ZAR ZMW ZWG
`)

// IsCurrency reports whether code is a currency money may be kept in (see currencies):
// three capital letters of the list, so "usd" is not one; callers that accept lower
// case upper it first.
func IsCurrency(code string) bool {
	_, found := slices.BinarySearch(currencies, code)
	return found
}

// minorUnits are the currencies whose minor unit is not the hundredth, by the number of
// decimals ISO 4217 gives them (the metals have none, and take the default).
var minorUnits = map[string]int32{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
	"UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	"CLF": 4, "UYW": 4,
}

// MinorUnit is how many decimals a currency's smallest unit takes: 2 but where ISO
// 4217 says otherwise (0 for the yen, 3 for the dinars of Kuwait and Bahrain).
func MinorUnit(code string) int32 {
	if n, ok := minorUnits[code]; ok {
		return n
	}
	return 2
}
