/** The slip's take-over code (decision 0073). */
const slip = {
  codeLabel: "Take-over code",
  codeHint:
    "Keep this slip safe. With this code you can get your own login later. Printing a new slip makes this code stop working.",
  printFirst: "Print the slip with its take-over code",
  reprint: "Print a new slip (the old slip's code stops working)",
  printedBefore:
    "The slip with the take-over code was printed on {{date}} by {{name}}. Its code is only on that paper.",
  notPrinted: "No slip with a take-over code has been printed yet.",
  printedNow: "This code is shown only now. Print this slip and give it to the person.",
  printed: "Slip printed.",
  trailPrinted: "Slip with a take-over code printed by {{who}}",
  trailReprinted: "New slip printed by {{who}} (the old slip's code no longer works)",
  takeOverIntro: "Ask the person for their slip: the take-over code on it shows they are {{name}}.",
  takeOverCode: "Take-over code on {{name}}'s slip",
  takeOverCodeHint: "As printed on the latest slip, for example 7K4M-2QXA-BC.",
  codeNeeded: "Enter the take-over code printed on the person's slip.",
  codeWrong: "This take-over code does not match this person's latest slip.",
  noSlipYet:
    "No slip with a take-over code has been printed for this person. Print one at the centre and give it to them first.",
  printedByYou:
    "You printed this slip, so you cannot use its code yourself: another health worker of the centre, or the family, must start the take-over.",
  centreOnly: "Only a health worker of the person's centre prints their slip.",
};
export default slip;
