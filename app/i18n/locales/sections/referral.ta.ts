/** A facility's acknowledgement of a referral at /referral/{code} (decision 0114). */
const referral = {
  birthYearRequired: "நோயாளியின் பிறந்த ஆண்டைக் கொடுக்கவும்.",
  noteTooLong: "குறிப்பு மிக நீளமாக உள்ளது (அதிகபட்சம் 300 எழுத்துகள்).",
};
export default referral;
