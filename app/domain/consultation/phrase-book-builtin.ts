import type { PhraseKind } from "~/db/types";

/**
 * The phrase book's built-in sentences (decision 0081): short findings and advice a patient hears
 * or reads in her own language, each written in English, Hindi, Bengali and Tamil by a person —
 * never machine-translated. They were written for CareBridge by its developers in plain spoken
 * words; a clinic has them checked by a clinician fluent in each language before relying on them
 * (the admin's phrase screen says so, and records who checked each one: decision 0094), and adds
 * its own, reviewed, as data. Until then a sentence shows as not yet checked, never as reviewed.
 */
export type BuiltInPhrase = { id: string; kind: PhraseKind; en: string; hi: string; bn: string; ta: string };

export const BUILT_IN_PHRASES: readonly BuiltInPhrase[] = [
  {
    id: "report-normal",
    kind: "finding",
    en: "Your report looks normal.",
    hi: "आपकी रिपोर्ट सामान्य है।",
    bn: "আপনার রিপোর্ট স্বাভাবিক আছে।",
    ta: "உங்கள் அறிக்கை இயல்பாக உள்ளது.",
  },
  {
    id: "sugar-high",
    kind: "finding",
    en: "Your blood sugar is high.",
    hi: "आपके खून में शुगर ज़्यादा है।",
    bn: "আপনার রক্তে শর্করা বেশি।",
    ta: "உங்கள் இரத்தத்தில் சர்க்கரை அதிகமாக உள்ளது.",
  },
  {
    id: "bp-high",
    kind: "finding",
    en: "Your blood pressure is high.",
    hi: "आपका ब्लड प्रेशर ज़्यादा है।",
    bn: "আপনার রক্তচাপ বেশি।",
    ta: "உங்கள் இரத்த அழுத்தம் அதிகமாக உள்ளது.",
  },
  {
    id: "hb-low",
    kind: "finding",
    en: "Your blood is weak (low haemoglobin).",
    hi: "आपके खून में हीमोग्लोबिन कम है, यानी खून की कमी है।",
    bn: "আপনার রক্তে হিমোগ্লোবিন কম, অর্থাৎ রক্তাল্পতা আছে।",
    ta: "உங்கள் இரத்தத்தில் ஹீமோகுளோபின் குறைவாக உள்ளது, அதாவது இரத்தசோகை உள்ளது.",
  },
  {
    id: "kidney-raised",
    kind: "finding",
    en: "Your kidney test values are higher than they should be.",
    hi: "आपकी किडनी की जाँच के अंक जितने होने चाहिए उससे ज़्यादा हैं।",
    bn: "আপনার কিডনি পরীক্ষার মান যতটা হওয়া উচিত তার চেয়ে বেশি।",
    ta: "உங்கள் சிறுநீரகப் பரிசோதனை அளவுகள் இருக்க வேண்டியதை விட அதிகமாக உள்ளன.",
  },
  {
    id: "thyroid-abnormal",
    kind: "finding",
    en: "Your thyroid test is not in the normal range.",
    hi: "आपकी थायरॉइड की जाँच सामान्य सीमा में नहीं है।",
    bn: "আপনার থাইরয়েড পরীক্ষা স্বাভাবিক সীমার মধ্যে নেই।",
    ta: "உங்கள் தைராய்டு பரிசோதனை இயல்பான அளவில் இல்லை.",
  },
  {
    id: "infection-signs",
    kind: "finding",
    en: "Your report shows signs of an infection.",
    hi: "आपकी रिपोर्ट में संक्रमण के लक्षण दिखते हैं।",
    bn: "আপনার রিপোর্টে সংক্রমণের লক্ষণ দেখা যাচ্ছে।",
    ta: "உங்கள் அறிக்கையில் தொற்றின் அறிகுறிகள் தெரிகின்றன.",
  },
  {
    id: "chest-xray-clear",
    kind: "finding",
    en: "Your chest X-ray looks clear.",
    hi: "आपके सीने का एक्स-रे साफ़ है।",
    bn: "আপনার বুকের এক্স-রে পরিষ্কার।",
    ta: "உங்கள் மார்பு எக்ஸ்-ரே தெளிவாக உள்ளது.",
  },
  {
    id: "take-medicine-daily",
    kind: "advice",
    en: "Take the medicine your doctor gave you every day.",
    hi: "डॉक्टर ने जो दवा दी है, उसे हर दिन लीजिए।",
    bn: "ডাক্তার যে ওষুধ দিয়েছেন, তা প্রতিদিন খান।",
    ta: "மருத்துவர் கொடுத்த மருந்தை தினமும் சாப்பிடுங்கள்.",
  },
  {
    id: "district-hospital-week",
    kind: "advice",
    en: "See a doctor at the district hospital within a week.",
    hi: "एक हफ़्ते के अंदर ज़िला अस्पताल में डॉक्टर को दिखाइए।",
    bn: "এক সপ্তাহের মধ্যে জেলা হাসপাতালে ডাক্তার দেখান।",
    ta: "ஒரு வாரத்திற்குள் மாவட்ட மருத்துவமனையில் மருத்துவரைப் பாருங்கள்.",
  },
  {
    id: "hospital-today",
    kind: "advice",
    en: "Go to a hospital today.",
    hi: "आज ही अस्पताल जाइए।",
    bn: "আজই হাসপাতালে যান।",
    ta: "இன்றே மருத்துவமனைக்குச் செல்லுங்கள்.",
  },
  {
    id: "less-sugar-rice",
    kind: "advice",
    en: "Eat less sugar, sweets and rice.",
    hi: "चीनी, मिठाई और चावल कम खाइए।",
    bn: "চিনি, মিষ্টি আর ভাত কম খান।",
    ta: "சர்க்கரை, இனிப்பு மற்றும் அரிசி சாதத்தைக் குறைவாகச் சாப்பிடுங்கள்.",
  },
  {
    id: "drink-water",
    kind: "advice",
    en: "Drink more clean water every day.",
    hi: "हर दिन ज़्यादा साफ़ पानी पीजिए।",
    bn: "প্রতিদিন বেশি করে পরিষ্কার জল খান।",
    ta: "தினமும் அதிகமாகச் சுத்தமான தண்ணீர் குடியுங்கள்.",
  },
  {
    id: "repeat-3-months",
    kind: "advice",
    en: "Repeat this test in three months.",
    hi: "यह जाँच तीन महीने बाद फिर से कराइए।",
    bn: "তিন মাস পরে এই পরীক্ষাটি আবার করান।",
    ta: "மூன்று மாதங்களில் இந்தப் பரிசோதனையை மீண்டும் செய்யுங்கள்.",
  },
  {
    id: "iron-tablets",
    kind: "advice",
    en: "Take the iron tablets as your doctor prescribed.",
    hi: "डॉक्टर के बताए अनुसार आयरन की गोलियाँ लीजिए।",
    bn: "ডাক্তারের কথামতো আয়রন ট্যাবলেট খান।",
    ta: "மருத்துவர் சொன்னபடி இரும்புச்சத்து மாத்திரைகளைச் சாப்பிடுங்கள்.",
  },
  {
    id: "bring-report",
    kind: "advice",
    en: "Bring this report to your next visit.",
    hi: "अगली बार डॉक्टर के पास जाते समय यह रिपोर्ट साथ लाइए।",
    bn: "পরের বার ডাক্তারের কাছে যাওয়ার সময় এই রিপোর্টটি সঙ্গে আনুন।",
    ta: "அடுத்த முறை மருத்துவரைப் பார்க்கும்போது இந்த அறிக்கையைக் கொண்டு வாருங்கள்.",
  },
];
