/** The support page in French (server/support/faq.ts). */
import type { FaqText } from "./types.ts";

export const fr: FaqText = {
  language: "Français",
  title: "Aide et FAQ de QCard",
  intro:
    "Les réponses aux questions les plus fréquentes. Cette page est enregistrée sur votre appareil : elle s’ouvre aussi sans réseau.",
  languages: "Langue",
  topics: [
    {
      id: "activation",
      title: "Activation",
      items: [
        [
          "Comment activer QCard sur mon téléphone ?",
          "Votre organisation vous envoie un e-mail d’activation avec un code à 5 chiffres. Ouvrez QCard, saisissez le code sur le clavier, touchez « Connecter l’appareil », puis choisissez votre code PIN à 6 chiffres.",
        ],
        [
          "Mon code a expiré ou j’ai perdu l’e-mail. Que faire ?",
          "Sur le clavier du PIN, touchez « Envoyer l’e-mail d’activation », saisissez l’adresse e-mail de votre compte et répondez à votre question secrète. Un nouveau code vous est envoyé ; chaque code ne sert qu’une fois.",
        ],
      ],
    },
    {
      id: "pin",
      title: "Code PIN",
      items: [
        [
          "Quel code PIN puis-je choisir ?",
          "Six chiffres. Pour des raisons de sécurité, QCard refuse un chiffre répété plus de trois fois de suite, les suites directes comme 123456 ou 987654 et les motifs répétés comme 121212 ou 123123.",
        ],
        [
          "Que se passe-t-il après des codes PIN erronés ?",
          "Après cinq codes PIN erronés de suite, QCard efface ses données de cet appareil et vous l’activez de nouveau. Vos demandes, cartes et justificatifs restent en sécurité sur le serveur.",
        ],
      ],
    },
    {
      id: "requests",
      title: "Demandes",
      items: [
        [
          "Comment demander une dépense ?",
          "En mode demande, touchez « Nouvelle demande », choisissez le type, saisissez le montant (ou un budget pour une dépense récurrente), la devise et l’objet, puis soumettez. Vos approbateurs décident, niveau par niveau.",
        ],
        [
          "Pourquoi ne puis-je pas créer de demande ?",
          "Les paiements par carte dont le justificatif est en retard doivent d’abord recevoir leur justificatif ; le badge compte ce qui vous attend. Votre organisation peut aussi ne pas vous autoriser à créer des demandes.",
        ],
      ],
    },
    {
      id: "cards",
      title: "Cartes virtuelles",
      items: [
        [
          "Comment obtenir une carte ?",
          "Ouvrez une demande acceptée et touchez « Générer la carte ». La première fois, configurez le 3-D Secure : un mot de passe et un numéro de mobile qui servent à confirmer les paiements en ligne.",
        ],
        [
          "Comment voir le numéro de la carte ?",
          "Dans le détail de la carte, touchez « Afficher les données de la carte » : le numéro et le CVC s’affichent 30 secondes. Gelez la carte pour refuser les paiements jusqu’à ce que vous la dégeliez.",
        ],
      ],
    },
    {
      id: "receipts",
      title: "Justificatifs",
      items: [
        [
          "Comment ajouter un justificatif ?",
          "Ouvrez le paiement dans Transactions et touchez « Joindre un justificatif » : prenez une photo ou choisissez un fichier JPEG, PNG ou PDF. Les photos sont réduites sur votre téléphone avant l’envoi.",
        ],
        [
          "Quand un justificatif est-il dû ?",
          "Votre organisation fixe un nombre de jours après chaque paiement par carte. Un justificatif en retard apparaît dans le badge et bloque les nouvelles demandes jusqu’à ce qu’il soit joint.",
        ],
      ],
    },
    {
      id: "vat",
      title: "TVA",
      items: [
        [
          "Comment saisir la TVA d’un paiement ?",
          "Dans l’opération, indiquez le type de TVA : inconnu, sans TVA ou avec TVA. Si votre organisation demande le détail, choisissez le pays et jusqu’à trois codes de TVA ; chaque montant de TVA est calculé pour vous.",
        ],
        [
          "Pourquoi ne puis-je pas modifier la TVA ?",
          "Une opération contrôlée ne peut plus être modifiée, et les opérations refusées ou déplacées n’ont pas de TVA.",
        ],
      ],
    },
    {
      id: "offline",
      title: "Sans réseau",
      items: [
        [
          "QCard fonctionne-t-il hors ligne ?",
          "Oui. Il affiche les données enregistrées sur cet appareil, chiffrées avec une clé issue de votre code PIN. Les commentaires, notes, TVA et justificatifs ajoutés hors ligne attendent sur l’appareil et partent au retour du réseau.",
        ],
        [
          "Qu’est-ce qui demande le réseau ?",
          "L’activation, approuver ou refuser, créer une carte et déplacer un paiement vers une autre dépense : ces actions attendent toujours la réponse du serveur.",
        ],
      ],
    },
  ],
};
