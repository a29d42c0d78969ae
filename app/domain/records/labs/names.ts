/**
 * Analyte names in the patient's language (decision 0084): the common tests, as Indian patients
 * hear them named, followed by the English name labs print so she can find the line on her own
 * report ("हीमोग्लोबिन (Haemoglobin)"). Tests not listed keep their English name. Not reviewed by
 * a clinician or a professional translator yet; corrections go here.
 */
const NAMES: Record<string, Record<string, string>> = {
  hi: {
    "718-7": "हीमोग्लोबिन",
    "4544-3": "हीमैटोक्रिट",
    "789-8": "लाल रक्त कोशिकाएँ",
    "6690-2": "सफ़ेद रक्त कोशिकाएँ",
    "777-3": "प्लेटलेट्स",
    "30341-2": "ईएसआर",
    "1558-6": "खाली पेट शुगर",
    "1521-4": "खाने के बाद शुगर",
    "2345-7": "किसी भी समय की शुगर",
    "4548-4": "तीन महीने की औसत शुगर",
    "2093-3": "कुल कोलेस्ट्रॉल",
    "2571-8": "ट्राइग्लिसराइड",
    "2085-9": "एचडीएल (अच्छा) कोलेस्ट्रॉल",
    "13457-7": "एलडीएल (बुरा) कोलेस्ट्रॉल",
    "1975-2": "कुल बिलीरुबिन",
    "1742-6": "एसजीपीटी",
    "1920-8": "एसजीओटी",
    "1751-7": "एल्ब्यूमिन",
    "3091-6": "यूरिया",
    "2160-0": "क्रिएटिनिन",
    "3084-1": "यूरिक एसिड",
    "17861-6": "कैल्शियम",
    "2951-2": "सोडियम",
    "2823-3": "पोटैशियम",
    "3016-3": "थायरॉइड (टीएसएच)",
    "62292-8": "विटामिन डी",
    "2132-9": "विटामिन बी12",
    "2276-4": "फ़ेरिटिन",
    "2498-4": "आयरन",
    "1988-5": "सीआरपी",
  },
  bn: {
    "718-7": "হিমোগ্লোবিন",
    "4544-3": "হেমাটোক্রিট",
    "789-8": "লোহিত রক্তকণিকা",
    "6690-2": "শ্বেত রক্তকণিকা",
    "777-3": "প্লেটলেট",
    "30341-2": "ইএসআর",
    "1558-6": "খালি পেটে সুগার",
    "1521-4": "খাওয়ার পরে সুগার",
    "2345-7": "যেকোনো সময়ের সুগার",
    "4548-4": "তিন মাসের গড় সুগার",
    "2093-3": "মোট কোলেস্টেরল",
    "2571-8": "ট্রাইগ্লিসারাইড",
    "2085-9": "এইচডিএল (ভালো) কোলেস্টেরল",
    "13457-7": "এলডিএল (খারাপ) কোলেস্টেরল",
    "1975-2": "মোট বিলিরুবিন",
    "1742-6": "এসজিপিটি",
    "1920-8": "এসজিওটি",
    "1751-7": "অ্যালবুমিন",
    "3091-6": "ইউরিয়া",
    "2160-0": "ক্রিয়েটিনিন",
    "3084-1": "ইউরিক অ্যাসিড",
    "17861-6": "ক্যালসিয়াম",
    "2951-2": "সোডিয়াম",
    "2823-3": "পটাশিয়াম",
    "3016-3": "থাইরয়েড (টিএসএইচ)",
    "62292-8": "ভিটামিন ডি",
    "2132-9": "ভিটামিন বি12",
    "2276-4": "ফেরিটিন",
    "2498-4": "আয়রন",
    "1988-5": "সিআরপি",
  },
  ta: {
    "718-7": "ஹீமோகுளோபின்",
    "4544-3": "ஹீமாடோக்ரிட்",
    "789-8": "சிவப்பு இரத்த அணுக்கள்",
    "6690-2": "வெள்ளை இரத்த அணுக்கள்",
    "777-3": "தட்டணுக்கள்",
    "30341-2": "ஈஎஸ்ஆர்",
    "1558-6": "வெறும் வயிற்றுச் சர்க்கரை",
    "1521-4": "உணவுக்குப் பின் சர்க்கரை",
    "2345-7": "எந்த நேரத்திலும் சர்க்கரை",
    "4548-4": "மூன்று மாத சராசரி சர்க்கரை",
    "2093-3": "மொத்த கொலஸ்ட்ரால்",
    "2571-8": "ட்ரைகிளிசரைடு",
    "2085-9": "எச்டிஎல் (நல்ல) கொலஸ்ட்ரால்",
    "13457-7": "எல்டிஎல் (கெட்ட) கொலஸ்ட்ரால்",
    "1975-2": "மொத்த பிலிரூபின்",
    "1742-6": "எஸ்ஜிபிடி",
    "1920-8": "எஸ்ஜிஓடி",
    "1751-7": "அல்புமின்",
    "3091-6": "யூரியா",
    "2160-0": "கிரியாட்டினின்",
    "3084-1": "யூரிக் அமிலம்",
    "17861-6": "கால்சியம்",
    "2951-2": "சோடியம்",
    "2823-3": "பொட்டாசியம்",
    "3016-3": "தைராய்டு (டிஎஸ்எச்)",
    "62292-8": "வைட்டமின் டி",
    "2132-9": "வைட்டமின் பி12",
    "2276-4": "ஃபெரிட்டின்",
    "2498-4": "இரும்புச்சத்து",
    "1988-5": "சிஆர்பி",
  },
};

/** The analyte's name for a reader of `locale`: hers, then the English one in brackets. */
export function analyteName(loinc: string, english: string, locale: string): string {
  const own = NAMES[locale.slice(0, 2)]?.[loinc];
  return own ? `${own} (${english})` : english;
}

/** The analyte's name in `locale`'s language, when it has one (else null). */
export function localName(loinc: string, locale: string): string | null {
  return NAMES[locale.slice(0, 2)]?.[loinc] ?? null;
}

/** Does the name a report prints say something else than `shown` (case, spaces and marks aside)? */
export function printsOtherName(printed: string, shown: string): boolean {
  const bare = (n: string) => n.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
  return bare(printed) !== "" && bare(printed) !== bare(shown);
}

/**
 * The test as she reads it (decision 0090): its name in her language (else the catalogue's
 * English one), followed by the name her report prints when that says something else —
 * "हीमैटोक्रिट (PCV)", "Haematocrit (PCV)", "Haemoglobin" for a report printing "HAEMOGLOBIN".
 */
export function nameAsPrinted(loinc: string, english: string, printed: string, locale: string): string {
  const own = localName(loinc, locale) ?? english;
  return printsOtherName(printed, own) ? `${own} (${printed.trim()})` : own;
}

/** The LOINC codes with a name in `locale` (for the tests that every one is in the catalogue). */
export function namedLoincs(locale: string): string[] {
  return Object.keys(NAMES[locale] ?? {});
}
