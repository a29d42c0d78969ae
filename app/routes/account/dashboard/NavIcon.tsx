import { Icon } from "~/components/ui/Icon";

/** The outline icons of the dashboard's sidebar and menu (24×24 paths). */
const ICONS = {
  home: "M3 11.5 12 4l9 7.5M5 10v10h5v-6h4v6h5V10",
  user: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8c0-3.3 3.1-6 7-6s7 2.7 7 6",
  report: "M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h6",
  upload: "M12 16V4m0 0-4 4m4-4 4 4M5 16v4h14v-4",
  history: "M4 12a8 8 0 1 0 2.3-5.6L4 8.7M4 4v4.7h4.7M12 8v4l3 2",
  clock: "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-13v4l3 2",
  userPlus: "M10 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8c0-3.3 3.1-6 7-6 1.2 0 2.3.2 3.2.7M18 14v6m-3-3h6",
  users:
    "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm-6 9c0-3 2.7-5.5 6-5.5s6 2.5 6 5.5M16 4.5a3.5 3.5 0 0 1 0 6.5M18 14.8c1.8.8 3 2.6 3 5.2",
  list: "M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01",
  mail: "M3 6h18v12H3zM3 7l9 6 9-6",
  settings:
    "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm7.4-3 .1-1-2-1.6.3-2.4-2.3-.9-1.4-2-2.3.9L10 3.2 8.4 5.5l-2.5-.3-.9 2.3-2 1.4.9 2.3L2.7 13l2.3 1 .3 2.5 2.5-.1 1.6 2 2.3-1.2 2.3 1.2 1.6-2 2.5.1.3-2.5 2.3-1-1-1z",
  logout: "M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10",
  menu: "M4 6h16M4 12h16M4 18h16",
  chevron: "m9 6 6 6-6 6",
  chat: "M4 5h16v11H9l-5 4zM8 9h8M8 12h5",
  gauge: "M4 16a8 8 0 1 1 16 0M12 16l4-5M4 20h16",
  shield: "M12 3 5 6v5c0 4.4 3 8.3 7 10 4-1.7 7-5.6 7-10V6zM9 12l2 2 4-4",
} as const;

export type NavIconName = keyof typeof ICONS;

export function NavIcon({ name, className = "h-5 w-5 shrink-0" }: { name: NavIconName; className?: string }) {
  return (
    <Icon className={className}>
      <path d={ICONS[name]} />
    </Icon>
  );
}
