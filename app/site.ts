/** Site-wide facts shown on public pages: one place to change them for a deployment. */
export const site = {
  productName: "CareBridge",
  helpline: "+91 1800 123 4567",
  supportEmail: "support@carebridge.example",
  hours: "Mon-Fri 9:00 AM-6:00 PM",
  footerYear: 2025,
  outreachOffice: "Outreach Office, 12 Community Health Road, Gaya, Bihar 823001, India",
  corporateOffice: "Corporate Office, 4th Floor, 88 MG Road, Bengaluru, Karnataka 560001, India",
  /** The grievance officer (DPDP Act 2023, s. 8(10)); GRIEVANCE_NAME/EMAIL/PHONE override it. */
  grievance: {
    name: "Grievance Officer, CareBridge",
    email: "grievance@carebridge.example",
    phone: "+91 1800 123 4567",
  },
  social: [
    { key: "instagram", label: "Instagram", href: "https://www.instagram.com/carebridge" },
    { key: "facebook", label: "Facebook", href: "https://www.facebook.com/carebridge" },
    { key: "twitter", label: "X (Twitter)", href: "https://x.com/carebridge" },
    { key: "youtube", label: "YouTube", href: "https://www.youtube.com/@carebridge" },
  ],
} as const;
