/** Repeated views folded into one line of an access trail (decision 0073). */
const seen = {
  times: "{{text}}, {{n}} முறை",
  viewedByExpertTimes: "டாக்டர் {{name}} {{n}} முறை பார்த்தார், {{date}}",
  viewedByAdminTimes: "{{name}} (நிர்வாகி) {{n}} முறை பார்த்தார், {{date}}",
  openedViaTimes: "உங்கள் இணைப்பின் மூலம் {{n}} முறை திறக்கப்பட்டது, {{date}}",
  openedViaForTimes: "{{label}} க்கான உங்கள் இணைப்பின் மூலம் {{n}} முறை திறக்கப்பட்டது, {{date}}",
};
export default seen;
